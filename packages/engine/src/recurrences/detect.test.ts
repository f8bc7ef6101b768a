import { describe, expect, it } from 'vitest'
import { addDays } from '../ledger/model.ts'
import { shiftMonths } from './cadence.ts'
import { detectSeries, type HistoryRow } from './detect.ts'

/** A small deterministic generator, so a failure replays. */
function random(seed: number) {
  let s = seed
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

let next = 0
function row(date: string, amountCents: number): HistoryRow {
  next += 1
  return { id: `r${String(next).padStart(5, '0')}`, accountId: 'a', date, amountCents, categoryId: 'c' }
}

/** Monthly charges on `day` with ±`jitter` days and ±`noise` of the amount. */
function monthly(
  from: string,
  months: number,
  day: number,
  amount: number,
  rnd: () => number,
  jitter = 2,
  noise = 0.03,
) {
  return Array.from({ length: months }, (_, i) => {
    const date = addDays(shiftMonths(from, i, day), Math.round((rnd() * 2 - 1) * jitter))
    return row(date, Math.round(amount * (1 + (rnd() * 2 - 1) * noise)))
  })
}

describe('detecting recurring charges', () => {
  it('finds a monthly bill with jittered dates and amounts, among noise purchases at the same payee', () => {
    const rnd = random(7)
    const bill = monthly('2024-01-01', 14, 12, -8_000, rnd)
    const noise = [row('2024-03-25', -1_250), row('2024-07-03', -45_000), row('2024-11-20', -300)]
    const series = detectSeries([...bill, ...noise], '2025-02-20')
    expect(series?.cadence).toBe('monthly')
    expect(series?.rows.map((r) => r.id)).toEqual(bill.map((r) => r.id))
    expect(Math.abs(series!.amountCents + 8_000)).toBeLessThanOrEqual(8_000 * 0.03)
    expect(series?.nextDate).toBe('2025-03-12')
  })

  it('finds weekly, every-two-weeks and yearly cadences with their minimum occurrences', () => {
    const weekly = [0, 7, 14, 21].map((d) => row(addDays('2025-01-06', d), -1_500))
    expect(detectSeries(weekly, '2025-02-01')?.cadence).toBe('weekly')
    const biweekly = [0, 14, 29, 42, 56].map((d) => row(addDays('2025-01-03', d), 250_000))
    expect(detectSeries(biweekly, '2025-03-05')?.cadence).toBe('biweekly')
    const yearly = [row('2023-05-02', -12_000), row('2024-05-01', -12_500)]
    expect(detectSeries(yearly, '2024-06-01')?.cadence).toBe('yearly')
    expect(detectSeries(yearly.slice(1), '2024-06-01')).toBeNull()
  })

  it('needs three monthly occurrences, dates within two days and amounts within 7.5%', () => {
    expect(detectSeries([row('2025-01-05', -999), row('2025-02-05', -999)], '2025-02-10')).toBeNull()
    const late = [row('2025-01-05', -999), row('2025-02-05', -999), row('2025-03-10', -999)]
    expect(detectSeries(late, '2025-03-11')).toBeNull()
    const dearer = [row('2025-01-05', -1_000), row('2025-02-05', -1_000), row('2025-03-05', -1_100)]
    expect(detectSeries(dearer, '2025-03-10')).toBeNull()
    const close = [row('2025-01-05', -1_000), row('2025-02-05', -1_000), row('2025-03-05', -1_070)]
    expect(detectSeries(close, '2025-03-10')?.rows).toHaveLength(3)
  })

  it('tells month-end and nth-weekday charges from plain monthly ones', () => {
    const ends = ['2024-10-31', '2024-11-29', '2024-12-31', '2025-01-30'].map((d) => row(d, -5_000))
    expect(detectSeries(ends, '2025-02-10')?.cadence).toBe('month_end')
    const secondTuesdays = ['2024-10-08', '2024-11-12', '2024-12-10', '2025-01-14'].map((d) => row(d, -2_000))
    expect(detectSeries(secondTuesdays, '2025-02-01')?.cadence).toBe('nth_weekday')
  })

  it('follows a subscription whose price rises, once the latest two share the new price', () => {
    const rnd = random(3)
    const before = monthly('2024-01-01', 10, 20, -999, rnd, 1, 0)
    const after = monthly('2024-11-01', 3, 20, -1_299, rnd, 1, 0)
    const series = detectSeries([...before, ...after], '2025-01-25')
    expect(series?.cadence).toBe('monthly')
    expect(series?.amountCents).toBe(-1_299)
    expect(series?.previousAmountCents).toBe(-999)
    expect(series?.rows).toHaveLength(13)
  })

  it('drops a series that stopped', () => {
    const stopped = ['2024-01-05', '2024-02-05', '2024-03-05', '2024-04-05'].map((d) => row(d, -700))
    expect(detectSeries(stopped, '2024-09-01')).toBeNull()
  })
})
