import { describe, expect, it } from 'vitest'
import { addDays } from '../ledger/model.ts'
import { shiftMonths } from './cadence.ts'
import { CONVINCING_OCCURRENCES, detectSeries, type HistoryRow } from './detect.ts'

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

  it('reports no random shop as recurring, however often it is visited', () => {
    // Visits at random days and amounts (as the bench household's 300 shops get them), two years.
    const today = '2026-11-25'
    const days = Array.from({ length: 762 }, (_, d) => addDays(today, -d))
    const means = [1_800, 2_500, 4_000, 3_000, 300, 4_500, 2_000]
    // Coincidences are likeliest at the quieter shops (few visits at any one amount), so more of those.
    for (const [perWeek, shops] of [
      [0.5, 800],
      [1, 600],
      [2, 150],
      [4, 100],
    ] as const) {
      const rnd = random(100 + perWeek * 10)
      const found: string[] = []
      for (let shop = 0; shop < shops; shop++) {
        const visits = days
          .filter(() => rnd() < perWeek / 7)
          .map((date) => {
            const mean = means[Math.floor(rnd() * means.length)]!
            return row(date, -Math.max(50, Math.round((mean * (0.4 + rnd() * 1.2)) / 3)))
          })
        const series = detectSeries(visits, today)
        if (series) found.push(`${series.cadence} x${series.rows.length}`)
      }
      expect({ perWeek, found }).toEqual({ perWeek, found: [] })
    }
  })

  it('takes two charges a year apart for a yearly bill only when they are most of what the payee is paid', () => {
    const renewal = [row('2025-03-14', -8_900), row('2026-03-15', -9_200)]
    expect(detectSeries(renewal, '2026-04-01')?.cadence).toBe('yearly')
    expect(detectSeries([...renewal, row('2025-09-02', -2_500)], '2026-04-01')?.cadence).toBe('yearly')
    // The same pair among a shop's everyday visits is a coincidence.
    const rnd = random(9)
    const visits = Array.from({ length: 40 }, (_, i) =>
      row(addDays('2025-03-20', i * 9), -(1_000 + Math.round(rnd() * 3_000))),
    ).filter((r) => !r.amountCents.toString().startsWith('-8') && !r.amountCents.toString().startsWith('-9'))
    expect(detectSeries([...renewal, ...visits], '2026-04-01')).toBeNull()
  })

  it('takes three weekly charges only when they are most of the group, and six or more anywhere', () => {
    const three = [0, 7, 14].map((d) => row(addDays('2026-01-05', d), -1_250))
    expect(detectSeries(three, '2026-01-20')?.cadence).toBe('weekly')
    const visits = [3, 10, 17, 24, 31, 38].map((d) => row(addDays('2025-11-01', d), -(2_000 + d * 97)))
    expect(detectSeries([...three, ...visits], '2026-01-20')).toBeNull()
    // A monthly membership at a store also shopped at: six months in a row convince on their own.
    const membership = Array.from({ length: CONVINCING_OCCURRENCES }, (_, i) =>
      row(shiftMonths('2025-08-01', i, 12), -1_499),
    )
    const shopping = Array.from({ length: 20 }, (_, i) =>
      row(addDays('2025-08-03', i * 9), -(2_000 + i * 310)),
    )
    const series = detectSeries([...membership, ...shopping], '2026-01-20')
    expect(series?.cadence).toBe('monthly')
    expect(series?.rows.map((r) => r.id)).toEqual(membership.map((r) => r.id))
    expect(detectSeries([...membership.slice(1), ...shopping], '2026-01-20')).toBeNull()
  })

  it('refuses charges whose intervals or amounts wander', () => {
    // Same amount, gaps of 30, 45, 26 and 38 days: no cadence holds them within two days.
    const gaps = ['2025-06-01', '2025-07-01', '2025-08-15', '2025-09-10', '2025-10-18'].map((d) =>
      row(d, -4_000),
    )
    expect(detectSeries(gaps, '2025-10-20')).toBeNull()
    // Monthly to the day, but each amount 20% off the last.
    const wandering = [-4_000, -4_800, -3_840, -4_600, -3_700].map((c, i) =>
      row(shiftMonths('2025-06-10', i, 10), c),
    )
    expect(detectSeries(wandering, '2025-10-20')).toBeNull()
  })
})
