import { localDate, operations, runMutation, SCOPES } from '@hearth/engine'
import { ulid } from 'ulidx'
import { afterEach, describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { closeDevices, eventually, expectConverged, newDevice } from './devices.ts'

const server = useTestServer()
afterEach(async () => {
  await closeDevices()
})

const H = '/households/current'
const today = () => localDate(new Date(), 'UTC')
function day(n: number): string {
  return new Date(Date.parse(`${today()}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10)
}

describe('recurrences on a device', () => {
  it('answer the same on the device as over REST, and device writes reach the server', async () => {
    const owner = await server.newOwner()
    const { api, householdId } = owner
    const account = (
      await api.post(`${H}/accounts`, { name: 'Checking', type: 'cash', openingBalanceCents: 50_000 })
    ).body.id
    for (const n of [-90, -60, -30]) {
      const res = await api.post(`${H}/transactions`, {
        accountId: account,
        date: day(n),
        amountCents: -1_599,
        payeeName: 'Streamly',
      })
      expect(res.status).toBe(201)
    }
    const rent = await api.post(`${H}/recurrences`, {
      name: 'Rent',
      accountId: account,
      amountCents: -80_000,
      frequency: 'monthly',
      dayOfMonth: 1,
      startDate: '2025-01-01',
    })
    expect(rent.status).toBe(201)

    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    const paths: [string, () => Promise<unknown>][] = [
      [`${H}/recurrences`, () => device.query.recurrences.list({})],
      [`${H}/recurrences/${rent.body.id}`, () => device.query.recurrences.get({ id: rent.body.id })],
      [`${H}/recurrences/upcoming?days=60`, () => device.query.recurrences.upcoming({ days: 60 })],
      [`${H}/recurrences/suggestions`, () => device.query.recurrences.suggestions({})],
      [
        `${H}/forecasts/${today().slice(0, 7)}`,
        () => device.query.forecasts.get({ month: today().slice(0, 7) }),
      ],
    ]
    for (const [path, onDevice] of paths) {
      const rest = await api.get(path)
      expect(rest.status, path).toBe(200)
      expect(await onDevice(), path).toEqual(rest.body)
    }
    const suggestions = (await api.get(`${H}/recurrences/suggestions`)).body.items
    expect(suggestions).toHaveLength(1)
    expect(suggestions[0]).toMatchObject({ kind: 'recurring', name: 'Streamly', amountCents: '-1599' })

    await device.sync.disconnect()
    const id = ulid()
    await device.mutate.recurrences.create({
      id,
      name: 'Allowance',
      accountId: account,
      amountCents: -2_000,
      frequency: 'weekly',
      weekday: 'friday',
      startDate: '2025-01-03',
    })
    await device.mutate.recurrences.pause({ id: rent.body.id })
    await device.mutate.recurrences.dismissSuggestion({ key: suggestions[0].key })
    await device.mutate.recurrences.acceptSuggestion({ key: suggestions[0].key, recurrenceId: ulid() })
    device.sync.connect()
    await expectConverged(server, householdId, [device])
    const list = (await api.get(`${H}/recurrences`)).body.items
    expect(list.map((r: any) => [r.name, r.status, r.origin])).toEqual(
      expect.arrayContaining([
        ['Allowance', 'active', 'manual'],
        ['Rent', 'paused', 'manual'],
        ['Streamly', 'active', 'detected'],
      ]),
    )
    expect(await device.query.recurrences.list({})).toEqual({ items: list })
  })

  it('books an occurrence once when a device books it offline and the server job books it too', async () => {
    const owner = await server.newOwner()
    const { api, householdId } = owner
    const account = (await api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' })).body.id
    const r = (
      await api.post(`${H}/recurrences`, {
        name: 'Lunch',
        accountId: account,
        amountCents: -1_200,
        frequency: 'daily',
        startDate: today(),
      })
    ).body
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    await device.sync.disconnect()
    const offline = await device.mutate.recurrences.materializeNow({ id: r.id })
    expect(offline).toMatchObject({ date: today(), created: true })
    // The materialize job's step for this household alone (materializeRecurrences runs it for
    // every household of the store): on PostgreSQL the store is shared with other test files,
    // whose households' recurrences are theirs to book, at the dates they choose.
    await runMutation(
      server.store.db,
      operations.recurrences.materializeDue,
      {},
      { userId: 'system', role: 'owner', householdId, scopes: SCOPES, now: new Date() },
    )
    device.sync.connect()
    await expectConverged(server, householdId, [device])
    const rows = (await api.get(`${H}/transactions?source=recurring`)).body.items
    expect(rows.map((t: any) => [t.id, t.externalId])).toEqual([
      [offline.transaction.id, `recurrence:${r.id}:${today()}`],
    ])
    await eventually(async () => {
      expect((await device.query.recurrences.get({ id: r.id })).nextRunDate).toBe(day(1))
    })
  })
})
