import {
  AcceptedSuggestionSchema,
  RecurrenceBookingSchema,
  RecurrenceListSchema,
  RecurrenceSchema,
  RecurrenceSuggestionListSchema,
  UpcomingSchema,
} from '@hearth/contracts'
import { operations } from '@hearth/engine'
import { type OperationRoute, operationRoute } from '../http/operation-route.ts'

const tag = 'Recurrences'
const recurrences = '/households/{householdId}/recurrences'
const suggestion = `${recurrences}/suggestions/{key}`
const refs = { 404: ['NOT_FOUND'] } as const
const scheduleErrors = {
  400: ['VALIDATION_FAILED', 'INVALID_SCHEDULE', 'SCHEDULE_NEVER_OCCURS'],
  404: ['NOT_FOUND'],
  409: ['ACCOUNT_CLOSED'],
  422: ['CURRENCY_MISMATCH'],
} as const

/** Recurring schedules, their upcoming view, materialization and detected suggestions. See docs/api/recurrences.md. */
export const recurrenceRoutes: OperationRoute[] = [
  operationRoute(operations.recurrences.create, {
    method: 'post',
    path: recurrences,
    status: 201,
    tag,
    clientIds: ['id'],
    response: RecurrenceSchema,
    responseDescription: 'The new recurrence.',
    notes:
      'Body: name, accountId, amountCents (JSON number), currency (the account’s; optional), frequency, dayOfMonth, ' +
      'startDate, and optionally interval, weekday, weekOfMonth, endDate or count, payeeId, categoryId, memo. ' +
      'Occurrences before today are never booked. See docs/api/recurrences.md.',
    errors: { ...scheduleErrors, 409: ['ACCOUNT_CLOSED', 'ID_ALREADY_EXISTS'] },
  }),
  operationRoute(operations.recurrences.list, {
    method: 'get',
    path: recurrences,
    status: 200,
    tag,
    response: RecurrenceListSchema,
    responseDescription: 'The live recurrences.',
  }),
  operationRoute(operations.recurrences.upcoming, {
    method: 'get',
    path: `${recurrences}/upcoming`,
    status: 200,
    tag,
    response: UpcomingSchema,
    responseDescription: 'What is coming, in date order, with projected balances.',
    notes:
      'Query `days` (1-366, default 30) counts from today in the household time zone; `accountId` narrows it to one account.',
  }),
  operationRoute(operations.recurrences.suggestions, {
    method: 'get',
    path: `${recurrences}/suggestions`,
    status: 200,
    tag,
    response: RecurrenceSuggestionListSchema,
    responseDescription: 'Current suggestions.',
    notes: 'Dismissed suggestions are hidden unless `includeDismissed=true`.',
  }),
  operationRoute(operations.recurrences.acceptSuggestion, {
    method: 'post',
    path: `${suggestion}/accept`,
    status: 200,
    tag,
    params: { key: 'key' },
    clientIds: ['recurrenceId'],
    optionalBody: true,
    response: AcceptedSuggestionSchema,
    responseDescription: 'The recurrence created or repriced.',
    errors: { 404: ['SUGGESTION_NOT_FOUND'] },
  }),
  operationRoute(operations.recurrences.dismissSuggestion, {
    method: 'post',
    path: `${suggestion}/dismiss`,
    status: 204,
    tag,
    params: { key: 'key' },
    optionalBody: true,
    notes: 'Hidden across recomputations until the dismissal is undone. Dismissing twice is fine.',
    errors: { 404: ['SUGGESTION_NOT_FOUND'] },
  }),
  operationRoute(operations.recurrences.undismissSuggestion, {
    method: 'delete',
    path: `${suggestion}/dismiss`,
    status: 204,
    tag,
    params: { key: 'key' },
    notes: 'Undoes a dismissal; 404 when the key is not dismissed.',
    errors: refs,
  }),
  operationRoute(operations.recurrences.get, {
    method: 'get',
    path: `${recurrences}/{recurrenceId}`,
    status: 200,
    tag,
    response: RecurrenceSchema,
    responseDescription: 'The recurrence.',
    errors: refs,
  }),
  operationRoute(operations.recurrences.update, {
    method: 'patch',
    path: `${recurrences}/{recurrenceId}`,
    status: 200,
    tag,
    response: RecurrenceSchema,
    responseDescription: 'The updated recurrence.',
    notes: 'Partial. A schedule change recomputes nextRunDate; occurrences already past are not booked.',
    errors: scheduleErrors,
  }),
  operationRoute(operations.recurrences.delete, {
    method: 'delete',
    path: `${recurrences}/{recurrenceId}`,
    status: 204,
    tag,
    notes: 'Soft delete: it stops running; rows it booked stay.',
    errors: refs,
  }),
  operationRoute(operations.recurrences.pause, {
    method: 'post',
    path: `${recurrences}/{recurrenceId}/pause`,
    status: 200,
    tag,
    optionalBody: true,
    response: RecurrenceSchema,
    responseDescription: 'The paused recurrence.',
    notes: 'Nothing is booked while paused. Pausing a paused recurrence changes nothing.',
    errors: refs,
  }),
  operationRoute(operations.recurrences.resume, {
    method: 'post',
    path: `${recurrences}/{recurrenceId}/resume`,
    status: 200,
    tag,
    optionalBody: true,
    response: RecurrenceSchema,
    responseDescription: 'The active recurrence.',
    notes:
      'Runs from today on: occurrences that fell while it was paused are skipped, not back-filled (book one on purpose ' +
      'with materialize-now and its date).',
    errors: { ...refs, 409: ['RECURRENCE_NOT_PAUSED'] },
  }),
  operationRoute(operations.recurrences.materializeNow, {
    method: 'post',
    path: `${recurrences}/{recurrenceId}/materialize-now`,
    status: 200,
    tag,
    optionalBody: true,
    response: RecurrenceBookingSchema,
    responseDescription: 'The booked occurrence.',
    notes:
      'Books the next run now, due or not, as a pending row with source recurring through the transaction pipeline; ' +
      '`date` names another occurrence. Idempotent on the row’s externalId: a second call for the same occurrence ' +
      'returns the existing row with created false.',
    errors: {
      ...refs,
      409: ['RECURRENCE_PAUSED', 'RECURRENCE_ENDED', 'ACCOUNT_CLOSED'],
      422: ['NOT_AN_OCCURRENCE'],
    },
  }),
]
