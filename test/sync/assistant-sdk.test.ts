import { operations, runQuery, SCOPES } from '@hearth/engine'
import { afterEach, describe, expect, it } from 'vitest'
import { chat, relativeDates } from '../http/assistant-fixture.ts'
import { newOwner, useTestServer } from '../src/index.ts'
import { closeDevices, newDevice } from './devices.ts'

const server = useTestServer()
afterEach(async () => {
  await closeDevices()
})

const H = '/households/current'

describe('the assistant through the SDK', () => {
  // The first device of a PostgreSQL run builds its migrated PGlite template (about 30 s loaded),
  // and the first chat of a process trains the offline assistant's classifier (about a second).
  it('grants and withdraws the ai_processing consent, and chat follows at once', {
    timeout: 90_000,
  }, async () => {
    const owner = await newOwner(server)
    const device = await newDevice(server, owner)
    expect(await device.ai.consent()).toEqual({ purpose: 'ai_processing', granted: false, grantedAt: null })
    expect((await chat(server.url, owner.api, 'help')).status).toBe(403)
    expect((await device.ai.grantConsent()).granted).toBe(true)
    expect((await chat(server.url, owner.api, 'help')).status).toBe(201)
    expect((await device.ai.withdrawConsent()).granted).toBe(false)
    expect((await chat(server.url, owner.api, 'help')).body.code).toBe('AI_CONSENT_REQUIRED')
  })

  it("answers the assistant's reports on the device as the server does", async () => {
    const owner = await newOwner(server)
    const { api } = owner
    const d = relativeDates()
    const account = (await api.post(`${H}/accounts`, { name: 'Cash', type: 'cash' })).body
    const group = (await api.post(`${H}/category-groups`, { name: 'G' })).body
    const food = (await api.post(`${H}/categories`, { groupId: group.id, name: 'Food' })).body
    for (const [amountCents, payeeName] of [
      [-1250, 'Bakery'],
      [-8000, 'Market'],
      [300, 'Bakery'],
    ] as const) {
      await api.post(`${H}/transactions`, {
        accountId: account.id,
        date: d.lastMonthDay,
        amountCents,
        payeeName,
        categoryId: food.id,
      })
    }
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    const ctx = {
      userId: owner.userId,
      householdId: owner.householdId,
      role: 'owner' as const,
      scopes: [...SCOPES],
      now: new Date(),
    }
    const args = { fromDate: `${d.lastMonth}-01`, toDate: `${d.lastMonth}-28`, groupBy: 'payee' as const }
    const onServer = await runQuery(server.store.db, operations.reports.spending, args, ctx)
    expect(onServer.spentCents).toBe('9250')
    expect(onServer.groups.map((g) => [g.name, g.spentCents])).toEqual([
      ['Market', '8000'],
      ['Bakery', '950'],
    ])
    expect(await device.query.reports.spending(args)).toEqual(onServer)
    const largest = { fromDate: `${d.lastMonth}-01`, toDate: `${d.lastMonth}-28`, limit: 2 }
    expect(await device.query.reports.largestTransactions(largest)).toEqual(
      await runQuery(server.store.db, operations.reports.largestTransactions, largest, ctx),
    )
  })
})
