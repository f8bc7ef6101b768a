import { deriveUlid } from '../catalog/model.ts'
import { EngineError } from '../errors.ts'
import { addDays } from '../ledger/model.ts'
import { defineMutator, defineQuery } from '../mutator/define.ts'
import { householdToday } from './lookups.ts'
import { externalIdOf, type Recurrence, scheduleOf, toRecurrence } from './model.ts'
import { insertRecurrence } from './mutators.ts'
import { occurrencesBetween } from './schedule.ts'
import {
  DismissalArgsSchema,
  MaterializeDueArgsSchema,
  SuggestionKeyArgsSchema,
  SuggestionsArgsSchema,
} from './schema.ts'
import { computeSuggestions, type RecurrenceSuggestion } from './suggestions.ts'

function suggestionNotFound(key: string): EngineError {
  return new EngineError(404, 'SUGGESTION_NOT_FOUND', `No current suggestion has the key ${key}.`, {
    errors: [{ path: 'key', message: 'Not a current suggestion.' }],
  })
}

/** Detected recurring charges no recurrence tracks, and price changes on tracked ones; dismissed ones hidden. */
export const listSuggestions = defineQuery({
  audience: 'device',
  description: 'Detected unscheduled recurring charges plus price changes on tracked recurrences.',
  scope: 'read:recurrences',
  args: SuggestionsArgsSchema,
  async run(db, args, ctx): Promise<{ items: RecurrenceSuggestion[] }> {
    const today = await householdToday(db, ctx.householdId, ctx.now)
    const all = await computeSuggestions(db, ctx.householdId, today)
    return { items: args.includeDismissed ? all : all.filter((s) => !s.dismissed) }
  },
})

/** What accepting a suggestion did. */
export interface AcceptedSuggestion {
  key: string
  kind: RecurrenceSuggestion['kind']
  recurrence: Recurrence
}

/**
 * Accepts a current suggestion: a detected charge becomes a recurrence (origin `detected`) whose
 * first run is the next expected occurrence; a price change sets the recurrence's amount.
 */
export const acceptSuggestion = defineMutator({
  audience: 'device',
  description:
    'Creates the recurrence a detected suggestion describes (origin detected) or applies a price change.',
  scope: 'write:recurrences',
  args: SuggestionKeyArgsSchema,
  async run(tx, args, ctx): Promise<AcceptedSuggestion> {
    const today = await householdToday(tx, ctx.householdId, ctx.now)
    const found = (await computeSuggestions(tx, ctx.householdId, today)).find((s) => s.key === args.key)
    if (!found) throw suggestionNotFound(args.key)
    if (found.kind === 'priceChange') {
      const row = await tx
        .updateTable('recurrences')
        .set({ amount_cents: Number(found.amountCents), updated_at: ctx.now })
        .where('household_id', '=', ctx.householdId)
        .where('id', '=', found.recurrenceId!)
        .returningAll()
        .executeTakeFirstOrThrow()
      return { key: found.key, kind: found.kind, recurrence: toRecurrence(row) }
    }
    const recurrence = await insertRecurrence(
      tx,
      ctx,
      {
        id: args.recurrenceId ?? deriveUlid(found.transactionIds.at(-1)!, `recurrence:${found.key}`),
        name: found.name.slice(0, 200),
        accountId: found.accountId,
        amountCents: Number(found.amountCents),
        payeeId: found.payeeId,
        categoryId: found.categoryId,
        frequency: found.frequency,
        interval: 1,
        dayOfMonth: found.dayOfMonth,
        weekday: found.weekday,
        weekOfMonth: found.weekOfMonth,
        startDate: found.nextDate,
        endDate: null,
        count: null,
      },
      'detected',
    )
    return { key: found.key, kind: found.kind, recurrence }
  },
})

/** Hides a current suggestion by its key; it stays hidden when recomputed. Dismissing twice is fine. */
export const dismissSuggestion = defineMutator({
  audience: 'device',
  description: 'Hides a suggestion across recomputations.',
  scope: 'write:recurrences',
  args: DismissalArgsSchema,
  async run(tx, args, ctx): Promise<{ key: string }> {
    const today = await householdToday(tx, ctx.householdId, ctx.now)
    const found = (await computeSuggestions(tx, ctx.householdId, today)).some((s) => s.key === args.key)
    if (!found) throw suggestionNotFound(args.key)
    await tx
      .insertInto('recurrence_dismissals')
      .values({ household_id: ctx.householdId, id: args.key, created_at: ctx.now })
      .onConflict((c) => c.columns(['household_id', 'id']).doNothing())
      .execute()
    return { key: args.key }
  },
})

/** Undoes a dismissal, so the suggestion shows again while it holds. */
export const undismissSuggestion = defineMutator({
  audience: 'device',
  description: 'Undoes the dismissal of a suggestion.',
  scope: 'write:recurrences',
  args: DismissalArgsSchema,
  async run(tx, args, ctx): Promise<{ key: string }> {
    const gone = await tx
      .deleteFrom('recurrence_dismissals')
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.key)
      .executeTakeFirst()
    if (Number(gone.numDeletedRows) === 0) {
      throw new EngineError(404, 'NOT_FOUND', `No dismissal has the key ${args.key}.`, {
        errors: [{ path: 'key', message: 'Not dismissed.' }],
      })
    }
    return { key: args.key }
  },
})

/** Announces each newly detected price change once with `recurrence.priceChanged`. */
export const announcePriceChanges = defineMutator({
  audience: 'system',
  description: 'Emits recurrence.priceChanged once for each newly detected price change.',
  scope: 'read:recurrences',
  args: MaterializeDueArgsSchema,
  async run(tx, _args, ctx): Promise<{ announced: number }> {
    const today = await householdToday(tx, ctx.householdId, ctx.now)
    const changes = (await computeSuggestions(tx, ctx.householdId, today)).filter(
      (s) => s.kind === 'priceChange',
    )
    let announced = 0
    for (const s of changes) {
      const inserted = await tx
        .insertInto('recurrence_announcements')
        .values({ household_id: ctx.householdId, id: s.key, created_at: ctx.now })
        .onConflict((c) => c.columns(['household_id', 'id']).doNothing())
        .returning('id')
        .executeTakeFirst()
      if (!inserted) continue
      announced++
      ctx.emit('recurrence.priceChanged', {
        recurrenceId: s.recurrenceId!,
        suggestionKey: s.key,
        name: s.name,
        scheduledAmountCents: s.previousAmountCents!,
        observedAmountCents: s.amountCents,
        transactionIds: s.transactionIds,
      })
    }
    return { announced }
  },
})

/** A bill is announced this many days ahead: an occurrence from today to today + 3 is due soon. */
export const BILL_DUE_SOON_DAYS = 3

/**
 * Announces each bill coming in the next `BILL_DUE_SOON_DAYS` days once with `recurrence.dueSoon`:
 * an unbooked occurrence of an active recurrence that takes money out (a negative amount) on an
 * open account. Each (recurrence, date) is announced once, however often the job runs or on how
 * many servers (its key `due:<recurrenceId>:<date>` is recorded with the event, in one transaction).
 */
export const announceBillsDueSoon = defineMutator({
  audience: 'system',
  description: 'Emits recurrence.dueSoon once for each bill due in the next few days.',
  scope: 'read:recurrences',
  args: MaterializeDueArgsSchema,
  async run(tx, _args, ctx): Promise<{ announced: number }> {
    const today = await householdToday(tx, ctx.householdId, ctx.now)
    const to = addDays(today, BILL_DUE_SOON_DAYS)
    const rows = await tx
      .selectFrom('recurrences as r')
      .innerJoin('accounts as a', (j) =>
        j.onRef('a.household_id', '=', 'r.household_id').onRef('a.id', '=', 'r.account_id'),
      )
      .selectAll('r')
      .where('r.household_id', '=', ctx.householdId)
      .where('r.deleted_at', 'is', null)
      .where('r.status', '=', 'active')
      .where('r.amount_cents', '<', 0)
      .where('r.next_run_date', 'is not', null)
      .where('r.next_run_date', '<=', to)
      .where('a.deleted_at', 'is', null)
      .where('a.status', '=', 'open')
      .orderBy('r.id')
      .execute()
    let announced = 0
    for (const r of rows) {
      const from = r.run_from > today ? r.run_from : today
      for (const date of occurrencesBetween(scheduleOf(r), from, to)) {
        const booked = await tx
          .selectFrom('transactions')
          .select('id')
          .where('household_id', '=', ctx.householdId)
          .where('external_id', '=', externalIdOf(r.id, date))
          .executeTakeFirst()
        if (booked) continue
        const inserted = await tx
          .insertInto('recurrence_announcements')
          .values({ household_id: ctx.householdId, id: `due:${r.id}:${date}`, created_at: ctx.now })
          .onConflict((c) => c.columns(['household_id', 'id']).doNothing())
          .returning('id')
          .executeTakeFirst()
        if (!inserted) continue
        announced++
        ctx.emit('recurrence.dueSoon', {
          recurrenceId: r.id,
          name: r.name,
          accountId: r.account_id,
          date,
          amountCents: String(r.amount_cents),
        })
      }
    }
    return { announced }
  },
})
