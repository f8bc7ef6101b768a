import type { Transaction as Tx } from 'kysely'
import type { Database } from '../../../database.ts'
import type { MutationContext } from '../../../mutator/context.ts'
import { defineMutator } from '../../../mutator/define.ts'
import { idList } from '../../../shared/id-list.ts'
import { buildDrafts, type LocatedInput, markBankFed } from '../drafts.ts'
import { autoMatch } from '../matching.ts'
import type { Transaction } from '../model.ts'
import { type LedgerHooks, runDrafted, runWritten } from '../pipeline.ts'
import { BulkCreateTransactionsArgsSchema, type TransactionInput } from '../schema.ts'
import { hydrate, insertTransactions } from '../writes.ts'

/** What a bulk create did, row by row where it matters. */
export interface BulkCreateResult {
  /** Rows created and visible, in request order (bank rows folded into a twin are not among them). */
  items: Transaction[]
  createdCount: number
  skippedCount: number
  matchedCount: number
  /** Rows skipped because their importedId already exists on their account (or earlier in the request). */
  skipped: { index: number; importedId: string }[]
  /** Bank rows folded into their one hand-entered twin. */
  matched: { index: number; transactionId: string; matchedTransactionId: string }[]
}

/**
 * Creates up to 500 rows atomically; any bad row rejects the request and the error names its
 * index. A row whose importedId its account already holds (live or deleted) is skipped, so
 * re-running an import never duplicates; imported rows then meet their hand-entered twins. The
 * transaction pipeline's steps see the new rows drafted, then every row created or matched.
 */
export function defineBulkCreateTransactions(hooks: LedgerHooks) {
  return defineMutator({
    audience: 'device',
    description: 'Creates up to 500 rows atomically.',
    scope: 'write:transactions',
    args: BulkCreateTransactionsArgsSchema,
    run: (tx, args, ctx): Promise<BulkCreateResult> =>
      bulkCreateTransactions(tx, args.transactions, ctx, hooks),
  })
}

/**
 * The body of bulk create, for the import commit too. `knownImportsChecked`: the caller has
 * already left out every row whose importedId its account holds or that repeats an earlier row
 * (an import's plan does, in the same transaction), so that look-up is not made twice.
 * `twinsOnlyFor`: the caller has already looked for the rows' hand-entered twins as the match
 * engine does, in the same transaction, and only these rows (by id) have any; the others are
 * not looked up again.
 */
export async function bulkCreateTransactions(
  tx: Tx<Database>,
  transactions: readonly TransactionInput[],
  ctx: MutationContext,
  hooks: LedgerHooks,
  options: { knownImportsChecked?: boolean; twinsOnlyFor?: ReadonlySet<string> } = {},
): Promise<BulkCreateResult> {
  const skipped = options.knownImportsChecked
    ? new Map<number, string>()
    : await findKnownImports(tx, ctx.householdId, transactions)
  const items: LocatedInput[] = []
  transactions.forEach((input, index) => {
    if (!skipped.has(index)) items.push({ input, at: { prefix: `transactions.${index}.`, index } })
  })
  const { drafts } = await buildDrafts(tx, ctx, items, hooks)
  await runDrafted(hooks, tx, drafts, ctx, 'bulkCreate')
  const rows = await insertTransactions(tx, ctx.householdId, drafts)
  await markBankFed(tx, ctx.householdId, drafts, ctx.now)
  const twinsOnlyFor = options.twinsOnlyFor
  const { matched, flagged } = await autoMatch(
    tx,
    ctx.householdId,
    rows.filter((r) => r.source === 'imported' && (twinsOnlyFor === undefined || twinsOnlyFor.has(r.id))),
    ctx.now,
  )
  const indexOf = new Map(items.map((item) => [item.input.id, item.at.index!]))
  const folded = new Set(matched.map((m) => m.bank.id))
  const latest = new Map([...rows, ...flagged].map((r) => [r.id, r]))
  const created = rows.filter((r) => !folded.has(r.id)).map((r) => latest.get(r.id)!)
  const touched = new Map([...created, ...matched.map((m) => m.survivor)].map((r) => [r.id, r]))
  await runWritten(hooks, tx, [...touched.values()], ctx, 'bulkCreate')
  const visible = await hydrate(tx, ctx.householdId, created)
  for (const transaction of visible) ctx.emit('transaction.created', { transaction })
  const survivors = await hydrate(
    tx,
    ctx.householdId,
    matched.map((m) => m.survivor),
  )
  for (const transaction of survivors) {
    ctx.emit('transaction.updated', {
      transaction,
      matchedTransactionId: transaction.matchedTransactionId,
    })
  }
  return {
    items: visible,
    createdCount: rows.length,
    skippedCount: skipped.size,
    matchedCount: matched.length,
    skipped: [...skipped].map(([index, importedId]) => ({ index, importedId })),
    matched: matched.map((m) => ({
      index: indexOf.get(m.bank.id)!,
      transactionId: m.bank.id,
      matchedTransactionId: m.survivor.id,
    })),
  }
}

/** Indexes of rows whose (account, importedId) already exists, deleted rows included, or repeats earlier in the request. */
async function findKnownImports(
  tx: Tx<Database>,
  householdId: string,
  inputs: readonly TransactionInput[],
): Promise<Map<number, string>> {
  const withIds = inputs.flatMap((input, index) => (input.importedId ? [{ index, input }] : []))
  const skipped = new Map<number, string>()
  if (withIds.length === 0) return skipped
  const existing = await tx
    .selectFrom('transactions')
    .select(['account_id', 'imported_id'])
    .where('household_id', '=', householdId)
    .where('account_id', 'in', [...new Set(withIds.map((w) => w.input.accountId))])
    .where('imported_id', '=', idList([...new Set(withIds.map((w) => w.input.importedId!))]))
    .execute()
  const known = new Set(existing.map((e) => `${e.account_id}\u0000${e.imported_id}`))
  for (const { index, input } of withIds) {
    const key = `${input.accountId}\u0000${input.importedId}`
    if (known.has(key)) skipped.set(index, input.importedId!)
    else known.add(key)
  }
  return skipped
}
