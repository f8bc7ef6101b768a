import { type Kysely, sql, type Transaction } from 'kysely'
import { NoArgsSchema } from '../catalog/fields.ts'
import type { Database } from '../database.ts'
import { addDays, localDate } from '../ledger/model.ts'
import { defineMutator } from '../mutator/define.ts'
import { householdToday } from './lookups.ts'
import { upcomingFrom } from './upcoming.ts'

type Db = Kysely<Database> | Transaction<Database>

/** A low balance is looked for this many days ahead: from today to today + 14. */
export const LOW_BALANCE_AHEAD_DAYS = 14

/** The day an account's forecast balance first drops below zero. */
export interface LowBalanceCrossing {
  /** `low:<accountId>:<date>`: each is announced once, however often the job runs. */
  key: string
  accountId: string
  name: string
  currency: string
  date: string
  /** The account's forecast balance at the end of that day, negative. */
  projectedBalanceCents: string
}

/**
 * Each open cash account's first crossing in the next `LOW_BALANCE_AHEAD_DAYS` days: the first day
 * whose forecast end-of-day balance is below zero while the day before (or today's balance, before
 * anything coming) was at zero or above. The forecast is `recurrences.upcoming`'s: today's
 * balance, plus unbooked occurrences of active recurrences, pending recurring rows and
 * future-dated rows, day by day. An account already below zero has no crossing until it is
 * forecast back at zero or above; credit, loan and tracking accounts have none (their balances
 * are what is owed or held elsewhere, not money that can run out).
 */
export async function lowBalanceCrossings(
  db: Db,
  householdId: string,
  today: string,
): Promise<LowBalanceCrossing[]> {
  const accounts = await db
    .selectFrom('accounts')
    .select(['id', 'name', 'currency'])
    .where('household_id', '=', householdId)
    .where('deleted_at', 'is', null)
    .where('status', '=', 'open')
    .where('type', '=', 'cash')
    .orderBy('id')
    .execute()
  if (accounts.length === 0) return []
  const { items } = await upcomingFrom(db, householdId, today, LOW_BALANCE_AHEAD_DAYS + 1)
  const crossings: LowBalanceCrossing[] = []
  for (const account of accounts) {
    const mine = items.filter((i) => i.accountId === account.id)
    if (mine.length === 0) continue
    const first = mine[0]!
    let before = BigInt(first.projectedBalanceCents) - BigInt(first.amountCents)
    for (let i = 0; i < mine.length; i++) {
      const item = mine[i]!
      // The day's last item holds its end-of-day balance: an income booked after a bill on the
      // same day leaves the day as it ends.
      if (mine[i + 1]?.date === item.date) continue
      const balance = BigInt(item.projectedBalanceCents)
      if (before >= 0n && balance < 0n) {
        crossings.push({
          key: `low:${account.id}:${item.date}`,
          accountId: account.id,
          name: account.name,
          currency: account.currency,
          date: item.date,
          projectedBalanceCents: String(balance),
        })
        break
      }
      before = balance
    }
  }
  return crossings
}

/** Which of these keys were announced already in the household. */
async function announced(db: Db, householdId: string, keys: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set()
  const rows = await db
    .selectFrom('recurrence_announcements')
    .select('id')
    .where('household_id', '=', householdId)
    .where('id', 'in', keys)
    .execute()
  return new Set(rows.map((r) => r.id))
}

/**
 * The crossings a run of `announceLowBalances` would announce now, read without a write: the job
 * runs the mutation (which takes the household's clock) only for a household that has one.
 */
export async function unannouncedLowBalances(
  db: Kysely<Database>,
  householdId: string,
  now: Date,
): Promise<LowBalanceCrossing[]> {
  const crossings = await lowBalanceCrossings(db, householdId, await householdToday(db, householdId, now))
  const done = await announced(
    db,
    householdId,
    crossings.map((c) => c.key),
  )
  return crossings.filter((c) => !done.has(c.key))
}

/**
 * Households where money is scheduled to leave an open cash account in the next couple of weeks
 * (an active recurrence that takes money out, or a row dated from yesterday on that does), the
 * only ones where a balance can be forecast to drop. Generous by a day either side, as households
 * keep their own time zones.
 */
export async function householdsWithMoneyGoingOut(db: Kysely<Database>, now: Date): Promise<string[]> {
  const today = localDate(now, 'UTC')
  const from = addDays(today, -1)
  const to = addDays(today, LOW_BALANCE_AHEAD_DAYS + 1)
  const { rows } = await sql<{ household_id: string }>`
    select distinct a.household_id from accounts a
    where a.type = 'cash' and a.status = 'open' and a.deleted_at is null
      and (
        exists (
          select 1 from recurrences r
          where r.household_id = a.household_id and r.account_id = a.id and r.deleted_at is null
            and r.status = 'active' and r.amount_cents < 0 and r.next_run_date <= ${to}
        )
        or exists (
          select 1 from transactions t
          where t.household_id = a.household_id and t.account_id = a.id
            and t.date >= ${from} and t.date <= ${to}
            and t.deleted_at is null and t.amount_cents < 0
        )
      )
    order by a.household_id`.execute(db)
  return rows.map((r) => r.household_id)
}

/**
 * Announces each open cash account whose forecast balance drops below zero in the next
 * `LOW_BALANCE_AHEAD_DAYS` days with `account.lowBalanceAhead`, once per account and crossing day
 * (its key `low:<accountId>:<date>` is recorded with the event, in one transaction), however
 * often the job runs or on how many servers.
 */
export const announceLowBalances = defineMutator({
  audience: 'system',
  description: 'Emits account.lowBalanceAhead once for each account forecast to drop below zero soon.',
  scope: 'read:accounts',
  args: NoArgsSchema,
  async run(tx, _args, ctx): Promise<{ announced: number }> {
    const today = await householdToday(tx, ctx.householdId, ctx.now)
    let count = 0
    for (const c of await lowBalanceCrossings(tx, ctx.householdId, today)) {
      const inserted = await tx
        .insertInto('recurrence_announcements')
        .values({ household_id: ctx.householdId, id: c.key, created_at: ctx.now })
        .onConflict((oc) => oc.columns(['household_id', 'id']).doNothing())
        .returning('id')
        .executeTakeFirst()
      if (!inserted) continue
      count++
      ctx.emit('account.lowBalanceAhead', {
        accountId: c.accountId,
        name: c.name,
        currency: c.currency,
        date: c.date,
        projectedBalanceCents: c.projectedBalanceCents,
      })
    }
    return { announced: count }
  },
})
