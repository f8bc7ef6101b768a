import { sql } from 'kysely'
import { addDays } from '../ledger/model.ts'
import { defineQuery } from '../mutator/define.ts'
import { householdToday } from './lookups.ts'
import { externalIdOf, scheduleOf } from './model.ts'
import { occurrencesBetween } from './schedule.ts'
import { type UpcomingArgs, UpcomingArgsSchema } from './schema.ts'

type Db = Parameters<typeof householdToday>[0]

/** What an upcoming item is. */
export type UpcomingKind = 'occurrence' | 'pendingRecurring' | 'futureTransaction' | 'cardPaymentDue'

/** One thing coming in the window, with its account's projected balance once it has happened. */
export interface UpcomingItem {
  kind: UpcomingKind
  date: string
  accountId: string
  /** Signed cents the item moves; for a card payment due day, what the card owes (positive pays it off). */
  amountCents: string
  name: string | null
  recurrenceId: string | null
  transactionId: string | null
  payeeId: string | null
  categoryId: string | null
  projectedBalanceCents: string
}

/** The window, and the items in date order. */
export interface Upcoming {
  fromDate: string
  toDate: string
  items: UpcomingItem[]
}

const ORDER: Record<UpcomingKind, number> = {
  pendingRecurring: 0,
  futureTransaction: 1,
  occurrence: 2,
  cardPaymentDue: 3,
}

/** The day `day` of `month` (YYYY-MM), or the month's last day when it is shorter. */
function dayInMonth(month: string, day: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number]
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate()
  return `${month}-${String(Math.min(day, last)).padStart(2, '0')}`
}

/** Card due days from `from` to `to`. */
function dueDays(day: number, from: string, to: string): string[] {
  const out: string[] = []
  let month = from.slice(0, 7)
  while (month <= to.slice(0, 7)) {
    const d = dayInMonth(month, day)
    if (d >= from && d <= to) out.push(d)
    const [y, m] = month.split('-').map(Number) as [number, number]
    month = m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, '0')}`
  }
  return out
}

/**
 * What is coming from today for `days` days: unbooked recurrence occurrences, pending recurring
 * rows, future-dated rows and card payment due days, in date order, each with its account's
 * projected balance: today's balance (without the rows listed or dated later) plus everything
 * listed up to and including it.
 */
export const upcoming = defineQuery({
  audience: 'device',
  description:
    'What is coming in a window: recurrence occurrences, pending recurring rows, future rows and card due days.',
  scope: 'read:recurrences',
  args: UpcomingArgsSchema,
  async run(db, args: UpcomingArgs, ctx): Promise<Upcoming> {
    const today = await householdToday(db, ctx.householdId, ctx.now)
    return upcomingFrom(db, ctx.householdId, today, args.days ?? 30, args.accountId)
  },
})

/** What `upcoming` lists from `today` for `days` days, in one account or every open one. */
export async function upcomingFrom(
  db: Db,
  householdId: string,
  today: string,
  days: number,
  accountFilter?: string,
): Promise<Upcoming> {
  const to = addDays(today, days - 1)
  const accounts = await db
    .selectFrom('accounts')
    .select(['id', 'type', 'balance_cents', 'payment_due_day'])
    .where('household_id', '=', householdId)
    .where('deleted_at', 'is', null)
    .where('status', '=', 'open')
    .$if(accountFilter !== undefined, (q) => q.where('id', '=', accountFilter!))
    .execute()
  const live = new Set(accounts.map((a) => a.id))
  const items: Omit<UpcomingItem, 'projectedBalanceCents'>[] = []

  const rows = await db
    .selectFrom('transactions')
    .select([
      'id',
      'account_id',
      'date',
      'amount_cents',
      'payee_id',
      'category_id',
      'memo',
      'source',
      'status',
    ])
    .where('household_id', '=', householdId)
    .where('deleted_at', 'is', null)
    .where('merged_into_id', 'is', null)
    .where('date', '>=', today)
    .where('date', '<=', to)
    .where((w) =>
      w.or([
        w.and([w('source', '=', 'recurring'), w('status', '=', 'pending')]),
        w.and([w('date', '>', today), w('source', '!=', 'recurring')]),
      ]),
    )
    .execute()
  const booked = new Set<string>()
  for (const r of rows) {
    if (!live.has(r.account_id)) continue
    items.push({
      kind: r.source === 'recurring' ? 'pendingRecurring' : 'futureTransaction',
      date: r.date,
      accountId: r.account_id,
      amountCents: String(r.amount_cents),
      name: r.memo,
      recurrenceId: null,
      transactionId: r.id,
      payeeId: r.payee_id,
      categoryId: r.category_id,
    })
  }
  const externals = await db
    .selectFrom('transactions')
    .select('external_id')
    .where('household_id', '=', householdId)
    .where('external_id', 'is not', null)
    .where('date', '>=', today)
    .where('date', '<=', to)
    .execute()
  for (const e of externals) booked.add(e.external_id!)

  const recurrences = await db
    .selectFrom('recurrences')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('deleted_at', 'is', null)
    .where('status', '=', 'active')
    .where('next_run_date', 'is not', null)
    .where('next_run_date', '<=', to)
    .execute()
  for (const r of recurrences) {
    if (!live.has(r.account_id)) continue
    const from = r.run_from > today ? r.run_from : today
    for (const date of occurrencesBetween(scheduleOf(r), from, to)) {
      if (booked.has(externalIdOf(r.id, date))) continue
      items.push({
        kind: 'occurrence',
        date,
        accountId: r.account_id,
        amountCents: String(r.amount_cents),
        name: r.name,
        recurrenceId: r.id,
        transactionId: null,
        payeeId: r.payee_id,
        categoryId: r.category_id,
      })
    }
  }
  for (const a of accounts) {
    if (a.type !== 'credit' || a.payment_due_day === null) continue
    for (const date of dueDays(a.payment_due_day, today, to)) {
      items.push({
        kind: 'cardPaymentDue',
        date,
        accountId: a.id,
        amountCents: '0',
        name: null,
        recurrenceId: null,
        transactionId: null,
        payeeId: null,
        categoryId: null,
      })
    }
  }
  items.sort(
    (a, b) =>
      (a.date < b.date ? -1 : a.date > b.date ? 1 : 0) ||
      ORDER[a.kind] - ORDER[b.kind] ||
      (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0) ||
      ((a.transactionId ?? a.recurrenceId ?? '') < (b.transactionId ?? b.recurrenceId ?? '') ? -1 : 1),
  )
  const running = await startingBalances(db, householdId, today, accounts)
  return {
    fromDate: today,
    toDate: to,
    items: items.map((item) => {
      let balance = running.get(item.accountId)!
      if (item.kind === 'cardPaymentDue') {
        // What the card owes on its due day: its projected balance, turned into a payment.
        item.amountCents = String(balance < 0 ? -balance : 0)
      } else {
        balance += BigInt(item.amountCents)
        running.set(item.accountId, balance)
      }
      return { ...item, projectedBalanceCents: String(balance) }
    }),
  }
}

/** Each account's balance without its rows dated today or later that are future or pending recurring. */
async function startingBalances(
  db: Db,
  householdId: string,
  today: string,
  accounts: readonly { id: string; balance_cents: number }[],
): Promise<Map<string, bigint>> {
  const out = new Map(accounts.map((a) => [a.id, BigInt(a.balance_cents)]))
  if (accounts.length === 0) return out
  const { rows } = await sql<{ account_id: string; cents: string }>`
    select account_id, sum(amount_cents)::text as cents from transactions
    where household_id = ${householdId} and deleted_at is null and merged_into_id is null
      and account_id in (${sql.join(accounts.map((a) => a.id))})
      and ((date > ${today}) or (date = ${today} and source = 'recurring' and status = 'pending'))
    group by account_id`.execute(db)
  for (const r of rows) out.set(r.account_id, out.get(r.account_id)! - BigInt(r.cents))
  return out
}
