import type { LedgerHooks } from '../ledger/transactions/pipeline.ts'
import { announceLowBalances } from './low-balance.ts'
import { defineMaterializeDue, defineMaterializeNow } from './materialize.ts'
import {
  createRecurrence,
  deleteRecurrence,
  pauseRecurrence,
  resumeRecurrence,
  updateRecurrence,
} from './mutators.ts'
import { getRecurrence, listRecurrences } from './queries.ts'
import {
  acceptSuggestion,
  announceBillsDueSoon,
  announcePriceChanges,
  dismissSuggestion,
  listSuggestions,
  undismissSuggestion,
} from './suggestion-operations.ts'
import { upcoming } from './upcoming.ts'

/**
 * The recurrences domain's operations (issue 26). `hooks` is the transaction pipeline a booked
 * occurrence goes through, like any other new row.
 */
export function recurrenceOperations(hooks: LedgerHooks) {
  return {
    recurrences: {
      acceptSuggestion,
      announceBillsDueSoon,
      announceLowBalances,
      announcePriceChanges,
      create: createRecurrence,
      delete: deleteRecurrence,
      dismissSuggestion,
      get: getRecurrence,
      list: listRecurrences,
      materializeDue: defineMaterializeDue(hooks),
      materializeNow: defineMaterializeNow(hooks),
      pause: pauseRecurrence,
      resume: resumeRecurrence,
      suggestions: listSuggestions,
      undismissSuggestion,
      upcoming,
      update: updateRecurrence,
    },
  }
}
