import { describe, expect, it } from 'vitest'
import {
  amortize,
  formatRatePercent,
  type LoanSchedule,
  levelPayment,
  minimumPayment,
  monthlyInterest,
  NeverPaidOffError,
  parseRatePercent,
  paymentDate,
  scheduleTotals,
} from './amortization.ts'

/** A fixed-rate loan with the payment `levelPayment` gives it. */
function loan(
  principalCents: number,
  ratePercent: string,
  months: number,
  first = '2026-01-01',
): LoanSchedule {
  const rateUnits = BigInt(parseRatePercent(ratePercent))
  const principal = BigInt(principalCents)
  return {
    principalCents: principal,
    rateUnits,
    paymentCents: levelPayment(principal, rateUnits, months),
    escrowCents: 0n,
    firstPaymentDate: first,
    termMonths: months,
  }
}

/** Cents off a float dollar figure from numpy-financial's documentation. */
const centsOff = (cents: bigint, dollars: number) => Math.abs(Number(cents) - dollars * 100)

describe('against numpy-financial’s documented examples', () => {
  it('pmt: $200,000 over 15 years at 7.5% is $1,854.02 a month (numpy: -1854.0247200054619)', () => {
    const payment = levelPayment(20_000_000n, 75_000n, 180)
    expect(payment).toBe(185_402n)
    // Rounding to the cent is the only difference: at most half a cent.
    expect(centsOff(payment, 1854.0247200054619)).toBeLessThanOrEqual(0.5)
    const rows = amortize(loan(20_000_000, '7.5', 180))
    expect(rows).toHaveLength(180)
    expect(rows.at(-1)!.balanceCents).toBe(0n)
  })

  it('ppmt: the first payment of $100,000 over 12 years at 8.5% repays $401.72 (numpy: -401.72223098117627)', () => {
    const [first] = amortize(loan(10_000_000, '8.5', 144))
    // Half a cent from the rounded payment and half a cent from the rounded interest, at most.
    expect(centsOff(first!.principalCents, 401.72223098117627)).toBeLessThanOrEqual(1)
    expect(first!.interestCents).toBe(70_833n)
  })

  it('ipmt and ppmt: the 1-year $2,500 loan at 8.24% matches the documented table within the rounding of each row', () => {
    // numpy-financial's ipmt example: period, ppmt, ipmt, balance (dollars, printed to the cent).
    const documented: [number, number, number, number][] = [
      [1, -200.58, -17.17, 2299.42],
      [2, -201.96, -15.79, 2097.46],
      [3, -203.35, -14.4, 1894.11],
      [4, -204.74, -13.01, 1689.37],
      [5, -206.15, -11.6, 1483.22],
      [6, -207.56, -10.18, 1275.66],
      [7, -208.99, -8.76, 1066.67],
      [8, -210.42, -7.32, 856.25],
      [9, -211.87, -5.88, 644.38],
      [10, -213.32, -4.42, 431.05],
      [11, -214.79, -2.96, 216.26],
      [12, -216.26, -1.49, 0],
    ]
    const rows = amortize(loan(250_000, '8.24', 12))
    expect(rows).toHaveLength(12)
    for (const [i, [number, ppmt, ipmt, balance]] of documented.entries()) {
      const row = rows[i]!
      expect(row.number).toBe(number)
      // Each printed figure is itself rounded, and our payment is a whole cent: 1.5 cents at most.
      // The last payment clears what is left, so it carries the balance's drift too.
      expect(centsOff(row.principalCents, -ppmt)).toBeLessThanOrEqual(number === 12 ? 0.5 + number : 1.5)
      expect(centsOff(row.interestCents, -ipmt)).toBeLessThanOrEqual(1.5)
      // The balance carries every earlier month's rounding: at most a cent a month, plus printing.
      expect(centsOff(row.balanceCents, balance)).toBeLessThanOrEqual(0.5 + number)
    }
    // numpy's total interest is $112.98; ours rounds each month to the cent.
    const { totalInterestCents } = scheduleTotals(rows)
    expect(totalInterestCents).toBe(11_297n)
    expect(centsOff(totalInterestCents, 112.98)).toBeLessThanOrEqual(2)
  })
})

describe('a 30-year $200,000 loan at 6.5%, checked by hand', () => {
  const rows = amortize(loan(20_000_000, '6.5', 360, '2026-02-01'))

  it('pays $1,264.14 a month, the nearest cent to P·r / (1 − (1 + r)^−360) = 1264.136…', () => {
    expect(levelPayment(20_000_000n, 65_000n, 360)).toBe(126_414n)
  })

  it('charges each month the balance × 6.5% / 12, rounded to the cent', () => {
    // 200,000.00 × 0.065 / 12 = 1,083.3333… → 1,083.33; 1,264.14 − 1,083.33 = 180.81.
    expect(rows[0]).toMatchObject({
      interestCents: 108_333n,
      principalCents: 18_081n,
      balanceCents: 19_981_919n,
    })
    // 199,819.19 × 0.065 / 12 = 1,082.3539… → 1,082.35.
    expect(rows[1]).toMatchObject({
      interestCents: 108_235n,
      principalCents: 18_179n,
      balanceCents: 19_963_740n,
    })
    for (const [i, row] of rows.entries()) {
      const before = i === 0 ? 20_000_000n : rows[i - 1]!.balanceCents
      expect(row.interestCents).toBe(monthlyInterest(before, 65_000n))
      expect(row.balanceCents).toBe(before - row.principalCents)
    }
  })

  it('ends with the 360th payment, which clears the balance exactly', () => {
    expect(rows).toHaveLength(360)
    expect(rows.at(-1)).toMatchObject({ date: '2056-01-01', balanceCents: 0n })
    expect(rows.reduce((sum, r) => sum + r.principalCents, 0n)).toBe(20_000_000n)
    // Every payment but the last is the level payment; the last is what is left.
    expect(rows.slice(0, -1).every((r) => r.paymentCents === 126_414n)).toBe(true)
    expect(rows.at(-1)!.paymentCents).toBeLessThanOrEqual(126_414n)
  })

  it('costs $255,085.82 of interest; numpy’s unrounded 1264.136… × 360 − 200,000 = 255,088.98', () => {
    const { totalInterestCents } = scheduleTotals(rows)
    expect(totalInterestCents).toBe(25_508_582n)
    // Paying 0.4 cent a month more than the exact figure saves a few dollars over 30 years.
    expect(centsOff(totalInterestCents, 255_088.98)).toBeLessThan(500)
  })

  it('pays off sooner and for less with extra principal each month', () => {
    const faster = amortize(loan(20_000_000, '6.5', 360, '2026-02-01'), {
      fromIndex: 0,
      extraMonthlyCents: 20_000n,
    })
    expect(faster.length).toBeLessThan(360)
    expect(faster[0]).toMatchObject({ principalCents: 38_081n, extraCents: 20_000n, paymentCents: 146_414n })
    expect(scheduleTotals(faster).totalInterestCents).toBeLessThan(25_508_582n)
    expect(faster.at(-1)!.balanceCents).toBe(0n)
  })

  it('finds 1,264.14 as the least payment that pays it off in 360 months', () => {
    const terms = loan(20_000_000, '6.5', 360)
    const least = minimumPayment(terms, { fromIndex: 0 }, 359)
    expect(least).toBe(126_414n)
    expect(amortize(terms, { fromIndex: 0, paymentCents: least })).toHaveLength(360)
    expect(amortize(terms, { fromIndex: 0, paymentCents: least - 1n }).length).toBeGreaterThan(360)
  })
})

describe('loan rules', () => {
  it('repays a loan at 0% in equal parts', () => {
    const rows = amortize(loan(120_000, '0', 12))
    expect(rows.map((r) => r.principalCents)).toEqual(Array(12).fill(10_000n))
    expect(scheduleTotals(rows).totalInterestCents).toBe(0n)
  })

  it('adds escrow to each payment without touching principal or interest', () => {
    const rows = amortize({ ...loan(250_000, '8.24', 12), escrowCents: 5_000n })
    expect(rows[0]).toMatchObject({
      interestCents: 1_717n,
      escrowCents: 5_000n,
      paymentCents: 21_775n + 5_000n,
    })
  })

  it('refuses a payment that never covers the first month’s interest', () => {
    const terms = loan(20_000_000, '6.5', 360)
    expect(() => amortize(terms, { fromIndex: 0, paymentCents: 108_333n })).toThrow(NeverPaidOffError)
  })

  it('applies a one-time extra to the chosen payment only', () => {
    const terms = loan(250_000, '8.24', 12)
    const rows = amortize(terms, { fromIndex: 2, oneTimeExtraCents: 50_000n })
    expect(rows.map((r) => r.extraCents).slice(0, 4)).toEqual([0n, 0n, 50_000n, 0n])
    expect(rows.length).toBeLessThan(12)
  })

  it('keeps the payment day, or the last day of a shorter month', () => {
    expect([0, 1, 2, 13].map((i) => paymentDate('2027-01-31', i))).toEqual([
      '2027-01-31',
      '2027-02-28',
      '2027-03-31',
      '2028-02-29',
    ])
  })

  it('holds rates exactly as 0.0001% units', () => {
    expect(parseRatePercent('6.5')).toBe(65_000)
    expect(parseRatePercent('0.0001')).toBe(1)
    expect(parseRatePercent('100')).toBe(1_000_000)
    expect(formatRatePercent(62_500)).toBe('6.25')
    expect(formatRatePercent(65_000)).toBe('6.5')
    expect(formatRatePercent(0)).toBe('0')
  })
})
