import { sql } from 'kysely'
import { invalid } from '../../errors.ts'
import { defineQuery } from '../../mutator/define.ts'
import { callerToday } from '../local-day.ts'
import { addDays, daysBetween, eachDay } from '../model.ts'
import { requireAccount } from './lookups.ts'
import { type Account, toAccount } from './model.ts'
import {
  AccountIdArgsSchema,
  BALANCE_HISTORY_MAX_DAYS,
  BalanceHistoryArgsSchema,
  ListAccountsArgsSchema,
} from './schema.ts'

/** Live accounts, optionally only open or only closed, by group (code-point order), then position. */
export const listAccounts = defineQuery({
  audience: 'device',
  description:
    'Live accounts, optionally only open or only closed, by group (code-point order), then position.',
  scope: 'read:accounts',
  args: ListAccountsArgsSchema,
  async run(db, args, ctx): Promise<{ items: Account[] }> {
    let query = db
      .selectFrom('accounts')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .where('deleted_at', 'is', null)
    if (args.status) query = query.where('status', '=', args.status)
    const rows = await query.orderBy(sql`group_name collate "C"`).orderBy('position').orderBy('id').execute()
    return { items: rows.map(toAccount) }
  },
})

/** One live account with its balance, cleared balance and uncleared balance. */
export const getAccount = defineQuery({
  audience: 'device',
  description: 'One live account with its balance, cleared balance and uncleared balance.',
  scope: 'read:accounts',
  args: AccountIdArgsSchema,
  async run(db, args, ctx): Promise<Account> {
    return toAccount(await requireAccount(db, ctx.householdId, args.id))
  },
})

/** One point of a balance history: the balances at the end of a day. */
export interface BalancePoint {
  date: string
  balanceCents: string
  clearedBalanceCents: string
}

/**
 * The account's running balance at the end of each day of a window (default: the 30 days
 * ending on the caller's local day), at most 366 days long.
 */
export const accountBalanceHistory = defineQuery({
  audience: 'device',
  description:
    "The account's running balance at the end of each day of a window (default: the 30 days ending on the caller's local day), at most 366 days long.",
  scope: 'read:accounts',
  args: BalanceHistoryArgsSchema,
  async run(
    db,
    args,
    ctx,
  ): Promise<{ accountId: string; fromDate: string; toDate: string; points: BalancePoint[] }> {
    const account = await requireAccount(db, ctx.householdId, args.id)
    const toDate = args.toDate ?? (args.fromDate ? addDays(args.fromDate, 29) : await callerToday(db, ctx))
    const fromDate = args.fromDate ?? addDays(toDate, -29)
    if (fromDate > toDate) {
      throw invalid('INVALID_DATE_RANGE', 'fromDate must not be after toDate.', [
        { path: 'fromDate', message: 'After toDate.' },
      ])
    }
    if (daysBetween(fromDate, toDate) + 1 > BALANCE_HISTORY_MAX_DAYS) {
      throw invalid(
        'WINDOW_TOO_LARGE',
        `A balance history covers at most ${BALANCE_HISTORY_MAX_DAYS} days.`,
        [{ path: 'toDate', message: `At most ${BALANCE_HISTORY_MAX_DAYS} days after fromDate.` }],
      )
    }
    const live = db
      .selectFrom('transactions')
      .where('household_id', '=', ctx.householdId)
      .where('account_id', '=', account.id)
      .where('deleted_at', 'is', null)
      .where('merged_into_id', 'is', null)
    const clearedSum = sql<number>`coalesce(sum(amount_cents) filter (where status <> 'pending'), 0)::bigint`
    const opening = await live
      .select([sql<number>`coalesce(sum(amount_cents), 0)::bigint`.as('total'), clearedSum.as('cleared')])
      .where('date', '<', fromDate)
      .executeTakeFirstOrThrow()
    const days = await live
      .select(['date', sql<number>`sum(amount_cents)::bigint`.as('total'), clearedSum.as('cleared')])
      .where('date', '>=', fromDate)
      .where('date', '<=', toDate)
      .groupBy('date')
      .execute()
    const byDay = new Map(days.map((d) => [d.date, d]))
    let total = opening.total
    let cleared = opening.cleared
    const points = eachDay(fromDate, toDate).map((date) => {
      const day = byDay.get(date)
      total += day?.total ?? 0
      cleared += day?.cleared ?? 0
      return { date, balanceCents: String(total), clearedBalanceCents: String(cleared) }
    })
    return { accountId: account.id, fromDate, toDate, points }
  },
})
