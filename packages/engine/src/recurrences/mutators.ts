import type { Transaction } from 'kysely'
import type { Database } from '../database.ts'
import { conflict, EngineError } from '../errors.ts'
import { type ReferenceUse, requireOpenAccount, requireReferences } from '../ledger/references.ts'
import { defineMutator } from '../mutator/define.ts'
import { fitToFrequency, householdToday, requireRecurrence, requireValidSchedule } from './lookups.ts'
import { type Recurrence, scheduleOf, toRecurrence } from './model.ts'
import { occurrenceOnOrAfter, type Schedule } from './schedule.ts'
import {
  type CreateRecurrenceArgs,
  CreateRecurrenceArgsSchema,
  RecurrenceIdArgsSchema,
  UpdateRecurrenceArgsSchema,
  WEEKDAY_NAMES,
} from './schema.ts'
import type { RecurrenceOrigin } from './tables.ts'

type Tx = Transaction<Database>

function weekdayIndex(name: (typeof WEEKDAY_NAMES)[number] | null | undefined): number | null {
  return name == null ? null : WEEKDAY_NAMES.indexOf(name)
}

/** The account (open, in the household), payee and category a recurrence names; its currency must be the account's. */
async function requireTargets(
  tx: Tx,
  householdId: string,
  t: { accountId: string; payeeId: string | null; categoryId: string | null; currency?: string },
): Promise<string> {
  const uses: ReferenceUse[] = [{ table: 'accounts', id: t.accountId, path: 'accountId' }]
  if (t.payeeId) uses.push({ table: 'payees', id: t.payeeId, path: 'payeeId' })
  if (t.categoryId) uses.push({ table: 'categories', id: t.categoryId, path: 'categoryId' })
  const account = (await requireReferences(tx, householdId, uses)).get(t.accountId)!
  requireOpenAccount(account)
  if (t.currency !== undefined && t.currency !== account.currency) {
    throw new EngineError(422, 'CURRENCY_MISMATCH', `Account ${account.id} holds ${account.currency}.`, {
      errors: [{ path: 'currency', message: `Must be the account's currency, ${account.currency}.` }],
    })
  }
  return account.currency
}

/** Creates a recurrence; shared by create and accepting a detected suggestion. */
export async function insertRecurrence(
  tx: Tx,
  ctx: { householdId: string; now: Date },
  args: CreateRecurrenceArgs,
  origin: RecurrenceOrigin,
): Promise<Recurrence> {
  const taken = await tx
    .selectFrom('recurrences')
    .select('id')
    .where('household_id', '=', ctx.householdId)
    .where('id', '=', args.id)
    .executeTakeFirst()
  if (taken) throw conflict('ID_ALREADY_EXISTS', `The id ${args.id} is already in use.`, { id: args.id })
  const schedule: Schedule = {
    frequency: args.frequency,
    interval: args.interval ?? 1,
    dayOfMonth: args.dayOfMonth ?? null,
    weekday: weekdayIndex(args.weekday),
    weekOfMonth: args.weekOfMonth ?? null,
    startDate: args.startDate,
    endDate: args.endDate ?? null,
    count: args.count ?? null,
  }
  requireValidSchedule(schedule)
  const currency = await requireTargets(tx, ctx.householdId, {
    accountId: args.accountId,
    payeeId: args.payeeId ?? null,
    categoryId: args.categoryId ?? null,
    currency: args.currency,
  })
  // Occurrences before the day it is made are history, not runs: they are never booked.
  const today = await householdToday(tx, ctx.householdId, ctx.now)
  const runFrom = schedule.startDate > today ? schedule.startDate : today
  const row = await tx
    .insertInto('recurrences')
    .values({
      household_id: ctx.householdId,
      id: args.id,
      name: args.name,
      account_id: args.accountId,
      amount_cents: args.amountCents,
      currency,
      frequency: schedule.frequency,
      interval: schedule.interval,
      day_of_month: schedule.dayOfMonth,
      weekday: schedule.weekday,
      week_of_month: schedule.weekOfMonth,
      start_date: schedule.startDate,
      end_date: schedule.endDate,
      occurrence_count: schedule.count,
      payee_id: args.payeeId ?? null,
      category_id: args.categoryId ?? null,
      memo: args.memo ?? null,
      status: 'active',
      origin,
      run_from: runFrom,
      next_run_date: occurrenceOnOrAfter(schedule, runFrom),
      last_run_date: null,
      created_at: ctx.now,
      updated_at: ctx.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
  return toRecurrence(row)
}

/** Creates a recurrence on an open account; its first run is its first occurrence from today on. */
export const createRecurrence = defineMutator({
  audience: 'device',
  description: 'Creates a recurring transaction schedule on an open account.',
  scope: 'write:recurrences',
  args: CreateRecurrenceArgsSchema,
  async run(tx, args, ctx): Promise<Recurrence> {
    return insertRecurrence(tx, ctx, args, 'manual')
  },
})

/** Changes a recurrence; a schedule change recomputes nextRunDate without booking past occurrences. */
export const updateRecurrence = defineMutator({
  audience: 'device',
  description: 'Changes a recurrence; a schedule change recomputes nextRunDate.',
  scope: 'write:recurrences',
  args: UpdateRecurrenceArgsSchema,
  async run(tx, args, ctx): Promise<Recurrence> {
    const row = await requireRecurrence(tx, ctx.householdId, args.id)
    const current = scheduleOf(row)
    const merged: Schedule = {
      frequency: args.frequency ?? current.frequency,
      interval: args.interval ?? current.interval,
      dayOfMonth: args.dayOfMonth !== undefined ? args.dayOfMonth : current.dayOfMonth,
      weekday: args.weekday !== undefined ? weekdayIndex(args.weekday) : current.weekday,
      weekOfMonth: args.weekOfMonth !== undefined ? args.weekOfMonth : current.weekOfMonth,
      startDate: args.startDate ?? current.startDate,
      endDate: args.endDate !== undefined ? args.endDate : current.endDate,
      count: args.count !== undefined ? args.count : current.count,
    }
    const schedule = args.frequency && args.frequency !== current.frequency ? fitToFrequency(merged) : merged
    requireValidSchedule(schedule)
    const accountId = args.accountId ?? row.account_id
    const payeeId = args.payeeId !== undefined ? args.payeeId : row.payee_id
    const categoryId = args.categoryId !== undefined ? args.categoryId : row.category_id
    const currency = await requireTargets(tx, ctx.householdId, {
      accountId,
      payeeId: args.payeeId ?? null,
      categoryId: args.categoryId ?? null,
      currency: args.currency ?? (args.accountId ? undefined : row.currency),
    })
    const runFrom = schedule.startDate > row.run_from ? schedule.startDate : row.run_from
    const updated = await tx
      .updateTable('recurrences')
      .set({
        ...(args.name !== undefined && { name: args.name }),
        ...(args.amountCents !== undefined && { amount_cents: args.amountCents }),
        ...(args.memo !== undefined && { memo: args.memo }),
        account_id: accountId,
        payee_id: payeeId,
        category_id: categoryId,
        currency,
        frequency: schedule.frequency,
        interval: schedule.interval,
        day_of_month: schedule.dayOfMonth,
        weekday: schedule.weekday,
        week_of_month: schedule.weekOfMonth,
        start_date: schedule.startDate,
        end_date: schedule.endDate,
        occurrence_count: schedule.count,
        run_from: runFrom,
        next_run_date: occurrenceOnOrAfter(schedule, runFrom),
        updated_at: ctx.now,
      })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    return toRecurrence(updated)
  },
})

/** Soft-deletes a recurrence: it stops running; the rows it booked stay. */
export const deleteRecurrence = defineMutator({
  audience: 'device',
  description: 'Soft-deletes a recurrence; it stops running and the rows it booked stay.',
  scope: 'write:recurrences',
  args: RecurrenceIdArgsSchema,
  async run(tx, args, ctx): Promise<{ id: string }> {
    await requireRecurrence(tx, ctx.householdId, args.id)
    await tx
      .updateTable('recurrences')
      .set({ deleted_at: ctx.now, updated_at: ctx.now })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .execute()
    return { id: args.id }
  },
})

/** Pauses a recurrence: no run is booked while it is paused. Pausing a paused one changes nothing. */
export const pauseRecurrence = defineMutator({
  audience: 'device',
  description: 'Pauses a recurrence; nothing is booked until it is resumed.',
  scope: 'write:recurrences',
  args: RecurrenceIdArgsSchema,
  async run(tx, args, ctx): Promise<Recurrence> {
    const row = await requireRecurrence(tx, ctx.householdId, args.id)
    if (row.status === 'paused') return toRecurrence(row)
    const updated = await tx
      .updateTable('recurrences')
      .set({ status: 'paused', updated_at: ctx.now })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    return toRecurrence(updated)
  },
})

/**
 * Resumes a paused recurrence from today: occurrences that fell while it was paused are skipped,
 * never booked behind the user's back (materialize-now with their date books one on purpose).
 */
export const resumeRecurrence = defineMutator({
  audience: 'device',
  description: 'Resumes a paused recurrence from today; runs missed while paused are skipped.',
  scope: 'write:recurrences',
  args: RecurrenceIdArgsSchema,
  async run(tx, args, ctx): Promise<Recurrence> {
    const row = await requireRecurrence(tx, ctx.householdId, args.id)
    if (row.status !== 'paused') {
      throw conflict('RECURRENCE_NOT_PAUSED', `Recurrence ${args.id} is not paused.`, {
        recurrenceStatus: row.status,
      })
    }
    const today = await householdToday(tx, ctx.householdId, ctx.now)
    const runFrom = today > row.run_from ? today : row.run_from
    const updated = await tx
      .updateTable('recurrences')
      .set({
        status: 'active',
        run_from: runFrom,
        next_run_date: occurrenceOnOrAfter(scheduleOf(row), runFrom),
        updated_at: ctx.now,
      })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    return toRecurrence(updated)
  },
})
