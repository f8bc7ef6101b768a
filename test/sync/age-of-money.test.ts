import { afterEach, describe, expect, it } from 'vitest'
import { newOwner, useTestServer } from '../src/index.ts'
import { closeDevices, newDevice } from './devices.ts'

const server = useTestServer()
afterEach(async () => {
  await closeDevices()
})

describe('age of money through the SDK', () => {
  it("answers on the device's replica what the server answers, offline writes included once synced", async () => {
    const owner = await newOwner(server)
    const H = '/households/current'
    const checking = await owner.api.post(`${H}/accounts`, {
      name: 'Checking',
      type: 'cash',
      openingBalanceCents: 30_000,
      openingBalanceDate: '2026-01-01',
    })
    const accountId = checking.body.id
    await owner.api.post(`${H}/transactions`, { accountId, date: '2026-01-15', amountCents: 30_000 })
    for (let i = 0; i < 9; i++) {
      await owner.api.post(`${H}/transactions`, { accountId, date: '2026-01-10', amountCents: -2_000 })
    }
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    const asOf = '2026-01-31'
    expect(await device.query.budgets.ageOfMoney({ asOf })).toEqual({ days: null, asOf, outflows: [] })

    // The tenth outflow is written on the device: the replica answers at once, the server once synced.
    await device.mutate.transactions.create({ accountId, date: '2026-01-20', amountCents: -20_000 })
    const local = await device.query.budgets.ageOfMoney({ asOf })
    expect(local.days).toBe(9)
    expect(local.outflows.at(-1)).toMatchObject({ date: '2026-01-20', amountCents: '-20000', ageDays: 13 })
    await device.sync.whenSynced()
    const rest = await owner.api.get(`${H}/budgets/age-of-money?asOf=${asOf}`)
    expect(rest.status).toBe(200)
    expect(rest.body).toEqual(local)
  })
})
