import type { ColumnType, Selectable } from 'kysely'
import type { RepointedRule } from '../rules/payee-references.ts'

type Timestamp = ColumnType<Date, Date | string, Date | string>
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>

/** How an alias matches a payee name. */
export type AliasMatch = 'exact' | 'startsWith' | 'contains' | 'regex'

/** Another spelling of a payee (a bank's "AMZN MKTP US"); a transaction named so goes to the payee. */
export interface PayeeAliasesTable {
  household_id: string
  id: string
  payee_id: string
  name: string
  /** `normalizePayeeName(name)` (a regex keeps its own text): unique among live aliases of one `match`. */
  normalized_name: string
  /** How a name matches: it is the spelling, or starts with it, contains it, or matches the regex. */
  match: ColumnType<AliasMatch, AliasMatch | undefined, AliasMatch>
  created_at: Timestamp
  updated_at: Timestamp
  deleted_at: NullableTimestamp
}

/** What one merge moved, kept so that an unmerge moves exactly those rows back. */
export interface PayeeMergeMoves {
  /** Transactions whose payee was the source, with their `updated_at` before the merge (ISO). */
  transactions: { id: string; updatedAt: string }[]
  /** Splits whose payee was the source. */
  splits: string[]
  /** The source's live aliases, now the target's. */
  aliases: { id: string; updatedAt: string }[]
  /** The source's aliases that duplicated one of the target's spellings, soft-deleted. */
  droppedAliases: { id: string; updatedAt: string }[]
  /** The alias made from the source's name, if its spelling was new to the target. */
  createdAliasId: string | null
  /** Rules that named the source, as they were (absent in merges recorded before rules followed). */
  rules?: RepointedRule[]
}

/** One merge of a source payee into a target, and whether it was undone. */
export interface PayeeMergesTable {
  household_id: string
  id: string
  source_payee_id: string
  target_payee_id: string
  moved: ColumnType<PayeeMergeMoves, string, string>
  /** The source's `updated_at` before the merge, restored by the unmerge. */
  source_updated_at: Timestamp
  created_at: Timestamp
  unmerged_at: NullableTimestamp
}

/** A category the household refused for a payee's suggestions; never suggested for it again. */
export interface PayeeCategoryRejectionsTable {
  household_id: string
  id: string
  payee_id: string
  category_id: string
  created_at: Timestamp
}

/**
 * Each store's key for its trained category model (migration 0048): a random id per household,
 * replaced by triggers whenever what the model learns from may have changed. Never synced.
 */
export interface SuggestionGenerationsTable {
  household_id: string
  generation: string
}

/** The payees domain's tables. */
export type PayeeTables = {
  payee_aliases: PayeeAliasesTable
  payee_merges: PayeeMergesTable
  payee_category_rejections: PayeeCategoryRejectionsTable
  suggestion_generations: SuggestionGenerationsTable
}

export type PayeeAliasRow = Selectable<PayeeAliasesTable>
export type PayeeMergeRow = Selectable<PayeeMergesTable>
