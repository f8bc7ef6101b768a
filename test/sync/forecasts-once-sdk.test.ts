import { localDate } from '@hearth/engine'
import { afterEach, describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { closeDevices, newDevice } from './devices.ts'

const server = useTestServer()
afterEach(async () => {
  await closeDevices()
})

const H = '/households/current'
const today = localDate(new Date(), 'UTC')
const thisMonth = today.slice(0, 7)
function month(k: number): string {
  const [y, m] = thisMonth.split('-').map(Number) as [number, number]
  const index = y * 12 + (m - 1) + k
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`
}
function lastDay(m: string): string {
  const [y, mm] = m.split('-').map(Number) as [number, number]
  return `${m}-${String(new Date(Date.UTC(y, mm, 0)).getUTCDate()).padStart(2, '0')}`
}

describe('forecasts count each bill once, on the server and on a device', () => {
  it('a tracked rent, a future-dated bill and an untracked month-end bill each count once', async () => {
    const owner = await server.newOwner()
    const { api } = owner
    const post = async (path: string, body?: unknown) => {
      const res = await api.post(`${H}${path}`, body)
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300)
      return res.body
    }
    const group = await post('/category-groups', { name: 'Bills' })
    const category = async (name: string) => (await post('/categories', { groupId: group.id, name })).id
    const rent = await category('Rent')
    const storage = await category('Storage')
    const parking = await category('Parking')
    const checking = (await post('/accounts', { name: 'Checking', type: 'cash' })).id
    // Each bill on the last day of the month: rent for six months, the others for three.
    const bill = (categoryId: string, payeeName: string, cents: number, date: string) => ({
      accountId: checking,
      categoryId,
      payeeName,
      amountCents: -cents,
      date,
    })
    const transactions = [
      ...[-6, -5, -4, -3, -2, -1].map((k) => bill(rent, 'Landlord', 150_000, lastDay(month(k)))),
      ...[-3, -2, -1].map((k) => bill(storage, 'Boxes Ltd', 5_000, lastDay(month(k)))),
      ...[-3, -2, -1].map((k) => bill(parking, 'Park & Co', 7_000, lastDay(month(k)))),
      // Storage entered ahead for this month's last day.
      bill(storage, 'Boxes Ltd', 5_000, lastDay(thisMonth)),
    ]
    await post('/transactions/bulk', { transactions })

    // The detected rent, accepted: a recurrence in the Rent category.
    const { items } = (await api.get(`${H}/recurrences/suggestions`)).body
    const landlord = items.find((s: any) => s.name === 'Landlord')
    expect(landlord).toMatchObject({ categoryId: rent, amountCents: '-150000' })
    await post(`/recurrences/suggestions/${encodeURIComponent(landlord.key)}/accept`)

    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    const forecastOf = async (m: string) => {
      const rest = await api.get(`${H}/forecasts/${m}`)
      expect(rest.status).toBe(200)
      expect(await device.query.forecasts.get({ month: m })).toEqual(rest.body)
      return new Map<string, any>(rest.body.categories.map((c: any) => [c.categoryId, c]))
    }

    const now = await forecastOf(thisMonth)
    // Rent: its occurrence on the last day, and nothing projected from the same payments' history.
    expect(now.get(rent)).toMatchObject({ projectedCents: '0', totalCents: '150000' })
    // Storage: the dated row, and no projection of its series on top.
    expect(now.get(storage)).toMatchObject({ projectedCents: '0', totalCents: '5000' })
    // Parking: projected for the last day, unless today is that day and it has not come.
    expect(now.get(parking)?.totalCents ?? '0').toBe(today === lastDay(thisMonth) ? '0' : '7000')

    // Next month reads complete months only: this month, not over, is not averaged as a whole one.
    const next = await forecastOf(month(1))
    expect(next.get(rent)).toMatchObject({
      scheduledCents: '150000',
      projectedCents: '0',
      totalCents: '150000',
    })
    expect(next.get(storage)).toMatchObject({ scheduledCents: '0', totalCents: '5000' })
    expect(next.get(parking)).toMatchObject({ scheduledCents: '0', totalCents: '7000' })
    // A PostgreSQL run's first device builds its migrated PGlite template (about 30 s when loaded).
  }, 120_000)
})
