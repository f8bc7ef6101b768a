import { addMonths, lastDayOf } from '../budgets/month.ts'

/** The households the forecast backtest runs on (issue 39). */
export type SampleForecastKind = 'seasonal' | 'steady' | 'bills'

/** One row of a sample household: spending is negative cents. */
export interface SampleRow {
  date: string
  category: string
  payee: string
  cents: number
}

/** A bill the household tracks as a recurrence. */
export interface SampleRecurrence {
  name: string
  category: string
  payee: string
  cents: number
  frequency: 'monthly' | 'monthly_last_day' | 'yearly'
  interval: number
  startDate: string
}

/** A generated household: its rows up to `today`, and the recurrences it tracks. */
export interface SampleForecastHousehold {
  kind: SampleForecastKind
  today: string
  categories: string[]
  rows: SampleRow[]
  recurrences: SampleRecurrence[]
}

/** The day the sample households end on; their 40 months of history run from February 2023. */
export const SAMPLE_TODAY = '2026-06-15'
const FIRST_MONTH = '2023-02'
const LAST_MONTH = '2026-05'

interface Variable {
  name: string
  payees: string[]
  perMonth: number
  mean: number
  /** A multiplier per month, January first. */
  season: number[]
}

const FLAT = Array.from({ length: 12 }, () => 1)

const VARIABLE: Variable[] = [
  {
    name: 'Heating',
    payees: ['Gas Co', 'Wood Yard'],
    perMonth: 3,
    mean: 9_000,
    season: [2.2, 2, 1.5, 1, 0.6, 0.4, 0.3, 0.3, 0.5, 1, 1.6, 2.1],
  },
  {
    name: 'Shopping',
    payees: ['Market Hall', 'Bazaar', 'Web Shop'],
    perMonth: 8,
    mean: 4_000,
    season: [0.7, 0.7, 0.9, 1, 1, 1, 1, 1, 1, 1.1, 1.6, 2.6],
  },
  {
    name: 'Travel',
    payees: ['Rail', 'Airline', 'Hotel'],
    perMonth: 3,
    mean: 12_000,
    season: [0.3, 0.3, 0.5, 0.8, 1, 1.6, 2.6, 2.6, 1, 0.6, 0.4, 1.2],
  },
  {
    name: 'Groceries',
    payees: ['Corner Shop', 'Supermarket', 'Farm Stand'],
    perMonth: 14,
    mean: 2_500,
    season: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1.1, 1.4],
  },
  {
    name: 'Dining',
    payees: ['Cafe', 'Bistro', 'Pizzeria'],
    perMonth: 6,
    mean: 3_000,
    season: [0.8, 0.8, 0.9, 1, 1.1, 1.2, 1.3, 1.3, 1, 1, 0.9, 1.4],
  },
]

/** A deterministic pseudo-random stream (mulberry32), so a sample household is the same every run. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function months(): string[] {
  const out: string[] = []
  for (let m = FIRST_MONTH; m <= LAST_MONTH; m = addMonths(m, 1)) out.push(m)
  out.push(SAMPLE_TODAY.slice(0, 7))
  return out
}

/** Random spending in each variable category, seasonal or flat, with noise in counts and amounts. */
function variableRows(seasonal: boolean, seed: number): SampleRow[] {
  const rnd = random(seed)
  const rows: SampleRow[] = []
  for (const month of months()) {
    const days = Number(lastDayOf(month).slice(8))
    for (const c of VARIABLE) {
      const factor = seasonal ? c.season[Number(month.slice(5)) - 1]! : FLAT[0]!
      const count = Math.round(c.perMonth * (0.7 + 0.6 * rnd()))
      for (let i = 0; i < count; i++) {
        const date = `${month}-${String(1 + Math.floor(rnd() * days)).padStart(2, '0')}`
        if (date > SAMPLE_TODAY) continue
        rows.push({
          date,
          category: c.name,
          payee: c.payees[Math.floor(rnd() * c.payees.length)]!,
          cents: -Math.round(c.mean * factor * (0.4 + 1.2 * rnd())),
        })
      }
    }
  }
  return rows
}

/** Bills only: rent on the month's last day and quarterly insurance on the 15th, tracked; internet
 * on the 15th and a phone on the last day, untracked; a yearly car tax on 20 March, tracked. */
function billRows(): { rows: SampleRow[]; recurrences: SampleRecurrence[] } {
  const recurrences: SampleRecurrence[] = [
    {
      name: 'Rent',
      category: 'Rent',
      payee: 'Landlord',
      cents: -150_000,
      frequency: 'monthly_last_day',
      interval: 1,
      startDate: lastDayOf(FIRST_MONTH),
    },
    {
      name: 'Insurance',
      category: 'Insurance',
      payee: 'Insurer',
      cents: -36_000,
      frequency: 'monthly',
      interval: 3,
      startDate: `${FIRST_MONTH}-15`,
    },
    {
      name: 'Car tax',
      category: 'Car',
      payee: 'Tax Office',
      cents: -18_000,
      frequency: 'yearly',
      interval: 1,
      startDate: '2023-03-20',
    },
  ]
  const rows: SampleRow[] = []
  months().forEach((month, i) => {
    const bills: SampleRow[] = [
      { date: lastDayOf(month), category: 'Rent', payee: 'Landlord', cents: -150_000 },
      { date: `${month}-15`, category: 'Internet', payee: 'NetCo', cents: -4_500 },
      { date: lastDayOf(month), category: 'Phone', payee: 'PhoneCo', cents: -2_500 },
    ]
    if (i % 3 === 0)
      bills.push({ date: `${month}-15`, category: 'Insurance', payee: 'Insurer', cents: -36_000 })
    if (month.endsWith('-03'))
      bills.push({ date: `${month}-20`, category: 'Car', payee: 'Tax Office', cents: -18_000 })
    rows.push(...bills.filter((b) => b.date <= SAMPLE_TODAY))
  })
  return { rows, recurrences }
}

/**
 * A generated household of 40 months ending `SAMPLE_TODAY`: `seasonal` (five categories with
 * strong yearly patterns), `steady` (the same categories without any) or `bills` (bills only, due
 * at month end and mid-month, some tracked as recurrences).
 */
export function sampleForecastHousehold(kind: SampleForecastKind, seed = 39): SampleForecastHousehold {
  if (kind === 'bills') {
    const { rows, recurrences } = billRows()
    return {
      kind,
      today: SAMPLE_TODAY,
      categories: ['Rent', 'Insurance', 'Car', 'Internet', 'Phone'],
      rows,
      recurrences,
    }
  }
  return {
    kind,
    today: SAMPLE_TODAY,
    categories: VARIABLE.map((c) => c.name),
    rows: variableRows(kind === 'seasonal', seed),
    recurrences: [],
  }
}
