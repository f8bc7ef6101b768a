import { addMonths, daysInMonth } from '@hearth/engine'
/** A generated household the evaluation asks about: every row is known, so every figure is too. */
export interface HouseholdPlan {
  today: string
  categories: { id: string; name: string; income: boolean }[]
  payees: { id: string; name: string; category: string }[]
  accounts: { id: string; name: string; type: 'cash' | 'credit' }[]
  tags: { id: string; name: string }[]
  rows: PlanRow[]
  recurrences: {
    id: string
    name: string
    payee: string
    category: string
    amountCents: number
    dayOfMonth: number
  }[]
}

/** One transaction: ids refer to the plan's own items. */
export interface PlanRow {
  id: string
  accountId: string
  date: string
  amountCents: number
  categoryId: string
  payeeId: string
  tagId: string | null
}

/** What each spending payee charges: its category, how often a month, and its range in cents. */
const SHOPS: [name: string, category: string, perMonth: number, min: number, max: number][] = [
  ['FreshMart', 'Groceries', 9, 2_500, 18_000],
  ['Green Grocer', 'Groceries', 4, 900, 4_500],
  ['Bistro Verde', 'Dining Out', 3, 3_500, 12_000],
  ['Pizza Planet', 'Dining Out', 3, 1_800, 4_200],
  ['City Power', 'Utilities', 1, 6_000, 14_000],
  ['Shell', 'Transport', 4, 3_000, 7_500],
  ['Metro Transit', 'Transport', 2, 250, 2_750],
  ['Cinema City', 'Entertainment', 2, 1_400, 3_600],
  ['Pet Palace', 'Pets', 2, 1_500, 9_000],
]
const FIXED: [name: string, category: string, cents: number, day: number][] = [
  ['Landlord Co', 'Rent', 185_000, 1],
  ['Netflix', 'Subscriptions', 1_599, 12],
  ['Spotify', 'Subscriptions', 1_199, 20],
]
const CATEGORIES = [
  'Groceries',
  'Dining Out',
  'Rent',
  'Utilities',
  'Subscriptions',
  'Transport',
  'Entertainment',
  'Pets',
]

const pad = (n: number, w = 2) => String(n).padStart(w, '0')
const id = (prefix: string, n: number) => `${prefix}${pad(n, 26 - prefix.length)}`

function random(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

/**
 * A household over the 15 months up to today: salary twice a month, rent, two subscriptions, shops
 * at their usual rates (scaled to `rowsWanted` in all), a grocery refund now and then, some rows
 * tagged. Deterministic for a given today and size.
 */
export function planHousehold(today: string, rowsWanted = 1_500, seed = 40): HouseholdPlan {
  const next = random(seed)
  const categories = [
    ...CATEGORIES.map((name, i) => ({ id: id('EVC', i), name, income: false })),
    { id: id('EVC', 90), name: 'Salary', income: true },
    { id: id('EVC', 91), name: 'Side Gig', income: true },
  ]
  const cat = (name: string) => categories.find((c) => c.name === name)!.id
  const payees = [
    ...[...SHOPS.map((s) => [s[0], s[1]]), ...FIXED.map((f) => [f[0], f[1]])].map(([name, category], i) => ({
      id: id('EVP', i),
      name: name!,
      category: category!,
    })),
    { id: id('EVP', 90), name: 'Acme Payroll', category: 'Salary' },
    { id: id('EVP', 91), name: 'Fiverr', category: 'Side Gig' },
  ]
  const payee = (name: string) => payees.find((p) => p.name === name)!.id
  const accounts = [
    { id: id('EVA', 1), name: 'Everyday Checking', type: 'cash' as const },
    { id: id('EVA', 2), name: 'Visa Card', type: 'credit' as const },
  ]
  const tags = [
    { id: id('EVT', 1), name: 'vacation' },
    { id: id('EVT', 2), name: 'work' },
  ]
  const rows: PlanRow[] = []
  const push = (
    date: string,
    cents: number,
    category: string,
    payeeName: string,
    accountId = accounts[0]!.id,
  ) => {
    if (date > today) return
    const tagged = next()
    rows.push({
      id: id('EVR', rows.length + 1),
      accountId,
      date,
      amountCents: cents,
      categoryId: cat(category),
      payeeId: payee(payeeName),
      tagId: cents < 0 && tagged < 0.06 ? tags[0]!.id : cents < 0 && tagged < 0.1 ? tags[1]!.id : null,
    })
  }
  const firstMonth = addMonths(today.slice(0, 7), -14)
  const shopRowsPerMonth = SHOPS.reduce((s, x) => s + x[2], 0)
  const scale = Math.max(1, (rowsWanted / 15 - 8) / shopRowsPerMonth)
  for (let k = 0; k < 15; k++) {
    const month = addMonths(firstMonth, k)
    const days = daysInMonth(month)
    push(`${month}-01`, 320_000, 'Salary', 'Acme Payroll')
    push(`${month}-15`, 320_000, 'Salary', 'Acme Payroll')
    if (k % 3 === 1) push(`${month}-18`, 45_000 + k * 1_000, 'Side Gig', 'Fiverr')
    for (const [name, category, cents, day] of FIXED) push(`${month}-${pad(day)}`, -cents, category, name)
    for (const [name, category, perMonth, min, max] of SHOPS) {
      const n = Math.round(perMonth * scale)
      for (let i = 0; i < n; i++) {
        const day = 1 + Math.floor(next() * days)
        const cents = min + Math.floor(next() * (max - min))
        const card = next() < 0.4 ? accounts[1]!.id : accounts[0]!.id
        push(`${month}-${pad(day)}`, -cents, category, name, card)
      }
    }
    push(`${month}-${pad(5 + (k % 20))}`, 1_250 + k * 10, 'Groceries', 'FreshMart')
  }
  const recurrences = FIXED.map(([name, category, cents, day], i) => ({
    id: id('EVS', i),
    name: `${name} bill`,
    payee: payee(name),
    category: cat(category),
    amountCents: -cents,
    dayOfMonth: day,
  }))
  return { today, categories, payees, accounts, tags, rows, recurrences }
}
