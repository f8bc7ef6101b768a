import {
  type HouseholdContext,
  householdsWithDueRecurrences,
  householdsWithMoneyGoingOut,
  localDate,
  operations,
  runMutation,
  SCOPES,
  type Store,
  type SystemContext,
  unannouncedLowBalances,
} from '@hearth/engine'
import type { Job } from './job.ts'

const MINUTE = 60_000

/** The system actor acting in one household, as a household mutator needs it. */
function inHousehold(actor: SystemContext, householdId: string, job: string): HouseholdContext {
  return {
    userId: 'system',
    role: 'owner',
    householdId,
    scopes: SCOPES,
    now: actor.now,
    via: { kind: 'job', job },
  }
}

/**
 * Books every due occurrence in every household, one household per transaction (each takes its
 * household's clock lock and checks each occurrence's external id, so a second server or a rerun
 * books nothing twice). A household that fails is logged and retried on the next run.
 */
export async function materializeRecurrences(
  store: Store,
  actor: SystemContext,
  onError: (householdId: string, error: unknown) => void = () => {},
): Promise<{ households: number; booked: number }> {
  let booked = 0
  const households = await householdsWithDueRecurrences(store.db, localDate(actor.now, 'UTC'))
  for (const householdId of households) {
    try {
      const { result } = await runMutation(
        store.db,
        operations.recurrences.materializeDue,
        {},
        inHousehold(actor, householdId, 'recurrences.materialize'),
      )
      booked += result.booked
    } catch (error) {
      onError(householdId, error)
    }
  }
  return { households: households.length, booked }
}

/** Announces newly detected price changes on tracked recurrences (`recurrence.priceChanged`), once each. */
export async function announcePriceChanges(
  store: Store,
  actor: SystemContext,
): Promise<{ announced: number }> {
  const rows = await store.db
    .selectFrom('recurrences')
    .select('household_id')
    .distinct()
    .where('deleted_at', 'is', null)
    .where('status', '=', 'active')
    .execute()
  let announced = 0
  for (const { household_id } of rows) {
    const { result } = await runMutation(
      store.db,
      operations.recurrences.announcePriceChanges,
      {},
      inHousehold(actor, household_id, 'recurrences.announcePriceChanges'),
    )
    announced += result.announced
  }
  return { announced }
}

/**
 * Announces the bills due in the next few days (`recurrence.dueSoon`), once per occurrence, in
 * every household with an active recurrence that takes money out, one household per transaction.
 * A household that fails is logged and retried on the next run.
 */
export async function announceBillsDueSoon(
  store: Store,
  actor: SystemContext,
  onError: (householdId: string, error: unknown) => void = () => {},
): Promise<{ announced: number }> {
  const rows = await store.db
    .selectFrom('recurrences')
    .select('household_id')
    .distinct()
    .where('deleted_at', 'is', null)
    .where('status', '=', 'active')
    .where('amount_cents', '<', 0)
    .where('next_run_date', 'is not', null)
    .execute()
  let announced = 0
  for (const { household_id } of rows) {
    try {
      const { result } = await runMutation(
        store.db,
        operations.recurrences.announceBillsDueSoon,
        {},
        inHousehold(actor, household_id, 'recurrences.announceBillsDueSoon'),
      )
      announced += result.announced
    } catch (error) {
      onError(household_id, error)
    }
  }
  return { announced }
}

/**
 * Announces each open cash account whose forecast balance drops below zero in the next two weeks
 * (`account.lowBalanceAhead`), once per account and crossing day. Only households with money
 * scheduled to go out are read, and a household's transaction (which takes its clock) runs only
 * when a read found a crossing not announced yet. A household that fails is logged and retried
 * on the next run.
 */
export async function announceLowBalances(
  store: Store,
  actor: SystemContext,
  onError: (householdId: string, error: unknown) => void = () => {},
): Promise<{ households: number; announced: number }> {
  const households = await householdsWithMoneyGoingOut(store.db, actor.now)
  let announced = 0
  for (const householdId of households) {
    try {
      if ((await unannouncedLowBalances(store.db, householdId, actor.now)).length === 0) continue
      const { result } = await runMutation(
        store.db,
        operations.recurrences.announceLowBalances,
        {},
        inHousehold(actor, householdId, 'recurrences.announceLowBalances'),
      )
      announced += result.announced
    } catch (error) {
      onError(householdId, error)
    }
  }
  return { households: households.length, announced }
}

/**
 * The recurrence jobs: materialization every 10 minutes; price-change, bill and low-balance
 * announcements hourly.
 */
export function recurrenceJobs(): Job[] {
  return [
    {
      name: 'recurrences.materialize',
      intervalMs: 10 * MINUTE,
      run: ({ store, actor, logger }) =>
        materializeRecurrences(store, actor, (householdId, err) =>
          logger.error({ err, householdId }, 'materialization failed'),
        ),
    },
    {
      name: 'recurrences.announcePriceChanges',
      intervalMs: 60 * MINUTE,
      run: ({ store, actor }) => announcePriceChanges(store, actor),
    },
    {
      name: 'recurrences.announceBillsDueSoon',
      intervalMs: 60 * MINUTE,
      run: ({ store, actor, logger }) =>
        announceBillsDueSoon(store, actor, (householdId, err) =>
          logger.error({ err, householdId }, 'bill announcement failed'),
        ),
    },
    {
      name: 'recurrences.announceLowBalances',
      intervalMs: 60 * MINUTE,
      run: ({ store, actor, logger }) =>
        announceLowBalances(store, actor, (householdId, err) =>
          logger.error({ err, householdId }, 'low balance announcement failed'),
        ),
    },
  ]
}
