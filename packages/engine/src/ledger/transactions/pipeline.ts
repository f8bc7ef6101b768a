import type { Transaction as Tx } from 'kysely'
import type { Database } from '../../database.ts'
import type { MutationContext } from '../../mutator/context.ts'
import type { TransactionRow } from '../tables.ts'
import type { TransactionDraft } from './writes.ts'

/** Which write a pipeline step is seeing: `transactions.create`, `.bulkCreate` or `.update`. */
export type TransactionWrite = 'create' | 'bulkCreate' | 'update'

/**
 * A step other domains add to every transaction write (rules, payee aliases, overrun checks),
 * run inside the mutation's transaction: a throw refuses the whole write, and what a step writes
 * or emits commits with it. Steps must be deterministic, as mutators are: ids derive from the
 * rows' ids and times from `ctx.now`.
 */
export interface TransactionPipelineStep {
  /** `<domain>.<what>`, for errors and docs. */
  readonly name: string
  /**
   * New rows, checked but not yet written (create and bulkCreate, one call per request): the step
   * may change their fields, such as a rule setting the category or an alias the payee. A
   * reference it sets must exist; nothing checks it again.
   */
  drafted?(
    tx: Tx<Database>,
    drafts: TransactionDraft[],
    ctx: MutationContext,
    write: TransactionWrite,
  ): Promise<void>
  /**
   * The rows the write created or changed, as they now stand, just before their events are
   * emitted (all three writes). The step may read, write other tables, emit events or throw; it
   * must not change these rows, whose events and response are already decided.
   */
  written?(
    tx: Tx<Database>,
    rows: readonly TransactionRow[],
    ctx: MutationContext,
    write: TransactionWrite,
  ): Promise<void>
  /**
   * Payees meant by spellings no live payee bears (normalized, as `normalizePayeeName` folds
   * them), such as payee aliases: asked before a row's `payeeName` would create a new payee, on
   * create, bulk import and update. Answers the spellings it knows; the first step that knows one
   * wins. The payees it names must be live.
   */
  payeesForNames?(
    tx: Tx<Database>,
    normalizedNames: readonly string[],
    ctx: MutationContext,
  ): Promise<ReadonlyMap<string, string>>
  /**
   * The pre-stage: payees for new imported rows from the bank's raw text, asked before that text
   * is cleaned up into a payee (a live payee of that name, an alias, or a new payee). Answers row
   * ids it decides a payee for (a rule that renames the payee); those rows make no payee of their
   * raw text. The first step that answers a row wins; the payees it names must be live.
   */
  payeesForImports?(
    tx: Tx<Database>,
    rows: readonly ImportedPayeeText[],
    ctx: MutationContext,
  ): Promise<ReadonlyMap<string, string>>
  /**
   * A row's category suggestion was rejected (`transactions.rejectSuggestion`); `row` is the
   * row before the rejection cleared it, so it still names the rejected category.
   */
  suggestionRejected?(tx: Tx<Database>, row: TransactionRow, ctx: MutationContext): Promise<void>
}

/** A new imported row as the pre-stage sees it: the bank's payee text before any clean-up. */
export interface ImportedPayeeText {
  id: string
  accountId: string
  date: string
  amountCents: number
  payeeText: string
  memo: string | null
  categoryId: string | null
}

/** The points where other domains plug into the ledger; the engine root fills them. */
export interface LedgerHooks {
  /** Run in order on every transaction write. */
  transactionPipeline: readonly TransactionPipelineStep[]
}

/** Lets each step shape the new rows before they are written. */
export async function runDrafted(
  hooks: LedgerHooks,
  tx: Tx<Database>,
  drafts: TransactionDraft[],
  ctx: MutationContext,
  write: TransactionWrite,
): Promise<void> {
  if (drafts.length === 0) return
  for (const step of hooks.transactionPipeline) await step.drafted?.(tx, drafts, ctx, write)
}

/** Shows each step the rows a write created or changed. */
export async function runWritten(
  hooks: LedgerHooks,
  tx: Tx<Database>,
  rows: readonly TransactionRow[],
  ctx: MutationContext,
  write: TransactionWrite,
): Promise<void> {
  if (rows.length === 0) return
  for (const step of hooks.transactionPipeline) await step.written?.(tx, rows, ctx, write)
}

/** The payees the steps know for spellings no live payee bears; the first step that knows one wins. */
export async function payeesForNames(
  hooks: LedgerHooks,
  tx: Tx<Database>,
  normalizedNames: readonly string[],
  ctx: MutationContext,
): Promise<Map<string, string>> {
  const found = new Map<string, string>()
  for (const step of hooks.transactionPipeline) {
    const wanted = normalizedNames.filter((n) => !found.has(n))
    if (wanted.length === 0 || !step.payeesForNames) continue
    for (const [name, payeeId] of await step.payeesForNames(tx, wanted, ctx)) {
      if (!found.has(name)) found.set(name, payeeId)
    }
  }
  return found
}

/** Payees the pre-stage decides for imported rows by their raw text; the first step to answer a row wins. */
export async function payeesForImports(
  hooks: LedgerHooks,
  tx: Tx<Database>,
  rows: readonly ImportedPayeeText[],
  ctx: MutationContext,
): Promise<Map<string, string>> {
  const found = new Map<string, string>()
  for (const step of hooks.transactionPipeline) {
    const wanted = rows.filter((r) => !found.has(r.id))
    if (wanted.length === 0 || !step.payeesForImports) continue
    for (const [id, payeeId] of await step.payeesForImports(tx, wanted, ctx)) {
      if (!found.has(id)) found.set(id, payeeId)
    }
  }
  return found
}

/** Tells each step that a row's category suggestion was rejected. */
export async function runSuggestionRejected(
  hooks: LedgerHooks,
  tx: Tx<Database>,
  row: TransactionRow,
  ctx: MutationContext,
): Promise<void> {
  for (const step of hooks.transactionPipeline) await step.suggestionRejected?.(tx, row, ctx)
}
