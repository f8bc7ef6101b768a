import type { Transaction as Tx } from 'kysely'
import { deriveUlid } from '../catalog/index.ts'
import type { Database } from '../database.ts'
import { conflict, EngineError } from '../errors.ts'
import { addDays } from '../ledger/model.ts'
import { buildDrafts } from '../ledger/transactions/drafts.ts'
import { SINGLE } from '../ledger/transactions/errors.ts'
import type { Transaction } from '../ledger/transactions/model.ts'
import { type LedgerHooks, runDrafted, runWritten } from '../ledger/transactions/pipeline.ts'
import { hydrate, insertTransactions } from '../ledger/transactions/writes.ts'
import type { MutationContext } from '../mutator/context.ts'
import { defineMutator } from '../mutator/define.ts'
import { householdToday, requireRecurrence } from './lookups.ts'
import { externalIdOf, scheduleOf } from './model.ts'
import { occurrenceOnOrAfter, occurrencesBetween } from './schedule.ts'
import { MaterializeDueArgsSchema, MaterializeNowArgsSchema } from './schema.ts'
import type { RecurrenceRow } from './tables.ts'

/** What booking one occurrence did: the row, and whether this call created it. */
export interface Booking {
  date: string
  created: boolean
  transaction: Transaction
}

/**
 * Books one occurrence as a pending `recurring` row through the transaction pipeline (aliases,
 * rules, budget overrun), unless a row with its external id exists, deleted or not. The row's id
 * derives from the recurrence and the date, so a device and the server book the same row.
 */
export async function bookOccurrence(
  tx: Tx<Database>,
  ctx: MutationContext,
  hooks: LedgerHooks,
  recurrence: RecurrenceRow,
  date: string,
): Promise<Booking> {
  const externalId = externalIdOf(recurrence.id, date)
  const existing = await tx
    .selectFrom('transactions')
    .selectAll()
    .where('household_id', '=', ctx.householdId)
    .where('external_id', '=', externalId)
    .executeTakeFirst()
  if (existing) {
    await advance(tx, ctx, recurrence, date)
    return { date, created: false, transaction: (await hydrate(tx, ctx.householdId, [existing]))[0]! }
  }
  const input = {
    id: deriveUlid(recurrence.id, `run:${date}`),
    accountId: recurrence.account_id,
    date,
    amountCents: recurrence.amount_cents,
    payeeId: recurrence.payee_id,
    categoryId: recurrence.category_id,
    memo: recurrence.memo,
    source: 'recurring' as const,
    status: 'pending' as const,
  }
  const { drafts } = await buildDrafts(tx, ctx, [{ input, at: SINGLE }], hooks)
  drafts[0]!.row.external_id = externalId
  await runDrafted(hooks, tx, drafts, ctx, 'create')
  const rows = await insertTransactions(tx, ctx.householdId, drafts)
  await runWritten(hooks, tx, rows, ctx, 'create')
  const transaction = (await hydrate(tx, ctx.householdId, rows))[0]!
  ctx.emit('transaction.created', { transaction })
  await advance(tx, ctx, recurrence, date)
  return { date, created: true, transaction }
}

/** Moves the recurrence past a booked occurrence: the next run is the first one after it. */
async function advance(tx: Tx<Database>, ctx: MutationContext, row: RecurrenceRow, date: string) {
  const after = addDays(date, 1)
  const runFrom = after > row.run_from ? after : row.run_from
  const last = row.last_run_date && row.last_run_date > date ? row.last_run_date : date
  const next = occurrenceOnOrAfter(scheduleOf(row), runFrom)
  Object.assign(row, { run_from: runFrom, last_run_date: last, next_run_date: next })
  await tx
    .updateTable('recurrences')
    .set({ run_from: runFrom, last_run_date: last, next_run_date: next, updated_at: ctx.now })
    .where('household_id', '=', ctx.householdId)
    .where('id', '=', row.id)
    .execute()
}

/**
 * Books the next run now, due or not: the first occurrence on or after the earlier of today and
 * the next run date, or the occurrence `date` names. A second call the same day finds that row by
 * its external id and books nothing.
 */
export function defineMaterializeNow(hooks: LedgerHooks) {
  return defineMutator({
    audience: 'device',
    description:
      'Books the next run of a recurrence now (or the occurrence on date); idempotent on externalId.',
    scope: 'write:recurrences',
    args: MaterializeNowArgsSchema,
    async run(tx, args, ctx): Promise<Booking> {
      const row = await requireRecurrence(tx, ctx.householdId, args.id)
      if (row.status === 'paused') {
        throw conflict('RECURRENCE_PAUSED', `Recurrence ${args.id} is paused; resume it first.`)
      }
      const schedule = scheduleOf(row)
      let date: string | null
      if (args.date !== undefined) {
        date = occurrencesBetween(schedule, args.date, args.date)[0] ?? null
        if (date === null) {
          throw new EngineError(
            422,
            'NOT_AN_OCCURRENCE',
            `${args.date} is not an occurrence of the schedule.`,
            {
              errors: [{ path: 'date', message: 'Not a day the schedule falls on.' }],
            },
          )
        }
      } else {
        const today = await householdToday(tx, ctx.householdId, ctx.now)
        date = occurrenceOnOrAfter(schedule, today < row.run_from ? today : row.run_from)
        if (date === null) {
          throw conflict('RECURRENCE_ENDED', `Recurrence ${args.id} has no further occurrence.`)
        }
      }
      return bookOccurrence(tx, ctx, hooks, row, date)
    },
  })
}

/** Most occurrences one recurrence books in one run of the job; a long outage catches up over runs. */
const MAX_PER_RUN = 400

/** What one household's materialization booked. */
export interface MaterializeResult {
  booked: number
  recurrences: number
}

/**
 * Books every due occurrence of the household's active recurrences, from each one's next run up
 * to today in the household's time zone; paused, deleted and closed-account recurrences are left.
 */
export function defineMaterializeDue(hooks: LedgerHooks) {
  return defineMutator({
    audience: 'system',
    description: "Books every due occurrence of the household's active recurrences up to today.",
    scope: 'write:recurrences',
    args: MaterializeDueArgsSchema,
    async run(tx, _args, ctx): Promise<MaterializeResult> {
      const today = await householdToday(tx, ctx.householdId, ctx.now)
      const due = await tx
        .selectFrom('recurrences as r')
        .innerJoin('accounts as a', (j) =>
          j.onRef('a.household_id', '=', 'r.household_id').onRef('a.id', '=', 'r.account_id'),
        )
        .selectAll('r')
        .where('r.household_id', '=', ctx.householdId)
        .where('r.deleted_at', 'is', null)
        .where('r.status', '=', 'active')
        .where('r.next_run_date', '<=', today)
        .where('a.status', '=', 'open')
        .where('a.deleted_at', 'is', null)
        .orderBy('r.next_run_date')
        .orderBy('r.id')
        .execute()
      let booked = 0
      for (const row of due) {
        const dates = occurrencesBetween(scheduleOf(row), row.run_from, today).slice(0, MAX_PER_RUN)
        for (const date of dates) {
          if ((await bookOccurrence(tx, ctx, hooks, row, date)).created) booked++
        }
      }
      return { booked, recurrences: due.length }
    },
  })
}

/** The households with a recurrence that may be due by `day` (a day ahead of UTC covers every zone). */
export async function householdsWithDueRecurrences(
  db: import('kysely').Kysely<Database>,
  day: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom('recurrences')
    .select('household_id')
    .distinct()
    .where('deleted_at', 'is', null)
    .where('status', '=', 'active')
    .where('next_run_date', '<=', addDays(day, 1))
    .execute()
  return rows.map((r) => r.household_id)
}
