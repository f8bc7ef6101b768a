import type { AccountType, TransactionStatus } from './tables.ts'

/** What one transaction row adds to its account's balance and cleared balance. */
export interface BalanceEffect {
  total: number
  cleared: number
}

/** The fields of a row that decide what it adds to its account's balances. */
export interface BalanceInputs {
  amount_cents: number
  status: TransactionStatus
  deleted_at: Date | null
  merged_into_id: string | null
}

/**
 * A live row counts its amount in the balance, and in the cleared balance once cleared or
 * reconciled; deleted rows and bank rows folded into a twin count nothing.
 */
export function balanceEffect(row: BalanceInputs): BalanceEffect {
  if (row.deleted_at !== null || row.merged_into_id !== null) return { total: 0, cleared: 0 }
  return { total: row.amount_cents, cleared: row.status === 'pending' ? 0 : row.amount_cents }
}

/** Cash and credit accounts are on budget; loan and tracking accounts are off budget. */
export function isOnBudget(type: AccountType): boolean {
  return type === 'cash' || type === 'credit'
}

/** Conversions never cross the budget boundary: only cash<->credit and loan<->tracking. */
export function canConvert(from: AccountType, to: AccountType): boolean {
  return from === to || isOnBudget(from) === isOnBudget(to)
}

/** The display group an account lands in when the caller names none. */
export function defaultGroupName(type: AccountType): string {
  return { cash: 'Cash', credit: 'Credit', loan: 'Loans', tracking: 'Tracking' }[type]
}

/** The calendar day an instant falls on in a time zone, as YYYY-MM-DD. */
export function localDate(now: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(now)
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? ''
  return `${get('year')}-${get('month')}-${get('day')}`
}

const DAY_MS = 86_400_000

/** The day `days` days after `date` (before, when negative). */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10)
}

/** Whole days from `from` to `to`; negative when `to` is earlier. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS)
}

/** Every day from `from` to `to`, both included. */
export function eachDay(from: string, to: string): string[] {
  const days: string[] = []
  for (let d = from; d <= to; d = addDays(d, 1)) days.push(d)
  return days
}

/**
 * New positions after a reorder. Within each group the listed accounts come first, in the
 * order given, and the group's unlisted accounts follow in their previous order.
 */
export function reorderPositions(
  accounts: readonly { id: string; group: string; position: number }[],
  orderedIds: readonly string[],
): Map<string, number> {
  const rank = new Map(orderedIds.map((id, i) => [id, i]))
  const byGroup = new Map<string, { id: string; position: number }[]>()
  for (const a of accounts) {
    const list = byGroup.get(a.group) ?? []
    list.push(a)
    byGroup.set(a.group, list)
  }
  const positions = new Map<string, number>()
  for (const list of byGroup.values()) {
    const listed = list.filter((a) => rank.has(a.id)).sort((x, y) => rank.get(x.id)! - rank.get(y.id)!)
    const rest = list
      .filter((a) => !rank.has(a.id))
      .sort((x, y) => x.position - y.position || (x.id < y.id ? -1 : 1))
    ;[...listed, ...rest].forEach((a, i) => {
      positions.set(a.id, i)
    })
  }
  return positions
}
