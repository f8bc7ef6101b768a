export type { LowBalanceCrossing } from './low-balance.ts'
export {
  householdsWithMoneyGoingOut,
  LOW_BALANCE_AHEAD_DAYS,
  unannouncedLowBalances,
} from './low-balance.ts'
export type { Booking, MaterializeResult } from './materialize.ts'
export { householdsWithDueRecurrences } from './materialize.ts'
export type { Recurrence } from './model.ts'
export { externalIdOf } from './model.ts'
export * from './schema.ts'
export type { AcceptedSuggestion } from './suggestion-operations.ts'
export type { RecurrenceSuggestion } from './suggestions.ts'
export type * from './tables.ts'
export type { Upcoming, UpcomingItem, UpcomingKind } from './upcoming.ts'
