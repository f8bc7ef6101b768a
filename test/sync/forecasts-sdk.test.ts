import { localDate } from '@hearth/engine'
import { ulid } from 'ulidx'
import { afterEach, describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { closeDevices, expectConverged, newDevice } from './devices.ts'

const server = useTestServer()
afterEach(async () => {
  await closeDevices()
})

const H = '/households/current'
const today = () => localDate(new Date(), 'UTC')
/** The same day of the month `k` months from today's month (the 1st to the 28th, so it exists). */
function monthDay(k: number, dayOfMonth: number): string {
  const [y, m] = today().split('-').map(Number) as [number, number]
  const index = y * 12 + (m - 1) + k
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}-${String(dayOfMonth).padStart(2, '0')}`
}

describe('forecasts on a device', () => {
  it("answer what the server does from the device's own daily sums, before and after offline edits", async () => {
    const owner = await server.newOwner()
    const { api, householdId } = owner
    const post = async (path: string, body: unknown) => {
      const res = await api.post(`${H}${path}`, body)
      expect(res.status, path).toBe(201)
      return res.body
    }
    const group = await post('/category-groups', { name: 'Everyday' })
    const food = await post('/categories', { groupId: group.id, name: 'Food' })
    const fun = await post('/categories', { groupId: group.id, name: 'Fun' })
    const checking = await post('/accounts', { name: 'Checking', type: 'cash' })
    const visa = await post('/accounts', { name: 'Visa', type: 'credit' })
    // Three trailing months, early and late in each, and a day of this month.
    for (const k of [-3, -2, -1]) {
      await post('/transactions', {
        accountId: checking.id,
        date: monthDay(k, 1),
        amountCents: -2_000,
        categoryId: food.id,
      })
      await post('/transactions', {
        accountId: visa.id,
        date: monthDay(k, 28),
        amountCents: -6_000,
        categoryId: fun.id,
      })
      await post('/transactions', {
        accountId: checking.id,
        date: monthDay(k, 27),
        amountCents: -3_000,
        splits: [
          { amountCents: -1_000, categoryId: food.id },
          { amountCents: -2_000, categoryId: fun.id },
        ],
      })
    }
    const spent = await post('/transactions', {
      accountId: checking.id,
      date: today(),
      amountCents: -1_234,
      categoryId: food.id,
    })
    await post('/transactions/transfer', {
      fromAccountId: checking.id,
      toAccountId: visa.id,
      date: today(),
      amountCents: 50_000,
    })

    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    const month = today().slice(0, 7)
    const compare = async () => {
      const rest = await api.get(`${H}/forecasts/${month}`)
      expect(rest.status).toBe(200)
      expect(await device.query.forecasts.get({ month })).toEqual(rest.body)
      return rest.body
    }
    const before = await compare()
    const foodBefore = before.categories.find((c: any) => c.categoryId === food.id)
    expect(foodBefore.actualCents).toBe('1234')

    // Offline on the device: this month's row moves to Fun, a trailing month gains a late row,
    // and one trailing row is deleted; the server's sums and the device's follow the same rows.
    await device.sync.disconnect()
    await device.mutate.transactions.update({ id: spent.id, categoryId: fun.id })
    await device.mutate.transactions.create({
      id: ulid(),
      accountId: checking.id,
      date: monthDay(-1, 25),
      amountCents: -9_000,
      categoryId: food.id,
    })
    const trailing = (await api.get(`${H}/transactions?categoryId=${fun.id}&limit=100`)).body.items
    const old = trailing.find((t: any) => t.date === monthDay(-2, 28))
    expect(old).toBeDefined()
    await device.mutate.transactions.delete({ id: old.id })
    device.sync.connect()
    await expectConverged(server, householdId, [device])
    const after = await compare()
    expect(after).not.toEqual(before)
    expect(after.categories.find((c: any) => c.categoryId === fun.id).actualCents).toBe('1234')
  })
})
