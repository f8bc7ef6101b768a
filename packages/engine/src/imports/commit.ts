import type { Transaction as Tx } from 'kysely'
import { deriveUlid } from '../catalog/model.ts'
import type { Database } from '../database.ts'
import { conflict, EngineError } from '../errors.ts'
import { toAccount } from '../ledger/accounts/model.ts'
import { bulkCreateTransactions } from '../ledger/transactions/mutators/bulk-create.ts'
import type { LedgerHooks } from '../ledger/transactions/pipeline.ts'
import type { TransactionInput } from '../ledger/transactions/schema.ts'
import type { MutationContext } from '../mutator/context.ts'
import { defineMutator } from '../mutator/define.ts'
import { type ImportBatch, toImportBatch } from './model.ts'
import type { CsvMapping } from './parse/csv.ts'
import { type ImportPlan, planImport } from './plan.ts'
import { CommitImportArgsSchema } from './schema.ts'
import type { ImportedMatch } from './tables.ts'

/** Rows per pass of the bulk-create pipeline inside one commit: a whole file of up to 10,000 rows is one pass (rules, payees and the model load once), kept under PostgreSQL's 65,535 bound parameters a statement. */
const CHUNK = 10_000

/** What a commit did, and the balances to compare. */
export interface ImportResult {
  batch: ImportBatch
  counts: ImportPlan['counts']
  /** The balance the file states, beside the account's balance after the import. */
  fileLedgerBalanceCents: string | null
  accountBalanceCents: string
  bankAccount: ImportPlan['bankAccount']
}

/** The account's saved CSV mapping, or undefined. */
export async function savedMapping(
  tx: Pick<Tx<Database>, 'selectFrom'>,
  householdId: string,
  accountId: string,
): Promise<CsvMapping | undefined> {
  const row = await tx
    .selectFrom('import_mappings')
    .select('mapping')
    .where('household_id', '=', householdId)
    .where('id', '=', accountId)
    .executeTakeFirst()
  if (!row) return undefined
  return typeof row.mapping === 'string' ? JSON.parse(row.mapping) : row.mapping
}

/** Keeps a CSV mapping for an account's next files. */
export async function keepMapping(
  tx: Tx<Database>,
  householdId: string,
  accountId: string,
  mapping: CsvMapping,
  now: Date,
): Promise<void> {
  await tx
    .insertInto('import_mappings')
    .values({ household_id: householdId, id: accountId, mapping: JSON.stringify(mapping), updated_at: now })
    .onConflict((oc) =>
      oc.columns(['household_id', 'id']).doUpdateSet({ mapping: JSON.stringify(mapping), updated_at: now }),
    )
    .execute()
}

/** The bulk-create input of a planned row: the bank's text kept as the imported payee. */
function inputOf(batchId: string, accountId: string, row: ImportPlan['rows'][number]): TransactionInput {
  const payee = row.payee?.trim().slice(0, 200) || undefined
  const memo = row.memo?.trim().slice(0, 1000) || null
  return {
    id: deriveUlid(batchId, `row:${row.line}:${row.importedId}`),
    accountId,
    date: row.date!,
    amountCents: Number(row.amountCents),
    ...(payee !== undefined && { payeeName: payee, importedPayee: row.payee!.slice(0, 500) }),
    memo,
    source: 'imported',
    importedId: row.importedId,
  }
}

/**
 * Commits a bank file's plan as one batch, in the mutation's one transaction: its new, matched
 * and ambiguous rows go through bulk create (aliases, rules, suggestions, the match engine, the
 * overrun check), duplicates are left out, so committing the same file again imports nothing.
 * A file with refused rows is refused unless `skipRefused`; a `planDigest` that no longer holds
 * (the ledger moved since the preview) is a 409.
 */
export function defineCommitImport(hooks: LedgerHooks) {
  return defineMutator({
    audience: 'device',
    description:
      "Commits a bank file's plan into an account as one undoable batch; duplicates are skipped, so a second commit of the same file imports nothing.",
    scope: 'write:transactions',
    cost: 'expensive',
    args: CommitImportArgsSchema,
    async run(tx, args, ctx): Promise<ImportResult> {
      const taken = await tx
        .selectFrom('import_batches')
        .select('id')
        .where('household_id', '=', ctx.householdId)
        .where('id', '=', args.id)
        .executeTakeFirst()
      if (taken) throw conflict('ID_ALREADY_EXISTS', `The id ${args.id} is already in use.`, { id: args.id })
      const mapping =
        args.format === 'csv'
          ? (args.mapping ?? (await savedMapping(tx, ctx.householdId, args.accountId)))
          : undefined
      const { plan } = await planImport(tx, ctx.householdId, args.accountId, { ...args, mapping })
      if (args.planDigest !== undefined && args.planDigest !== plan.digest) {
        throw conflict(
          'IMPORT_PLAN_CHANGED',
          'The ledger changed since the preview, so the plan did too; preview the file again.',
          { planDigest: plan.digest },
        )
      }
      const check = plan.bankAccount
      if ((check.status === 'unknown' || check.status === 'otherAccount') && !args.acceptBankAccount) {
        throw conflict('IMPORT_ACCOUNT_MISMATCH', check.message, {
          path: 'accountId',
          fileBankAccount: check.file,
          accountBankAccount: check.account,
          otherAccountId: check.otherAccountId,
        })
      }
      const refused = plan.rows.filter((r) => r.outcome === 'refused')
      if (refused.length > 0 && !args.skipRefused) {
        throw new EngineError(
          400,
          'IMPORT_ROWS_REFUSED',
          `${refused.length} rows of the file cannot be read; fix them, or commit with skipRefused to import the rest.`,
          {
            errors: refused
              .slice(0, 100)
              .map((r) => ({ path: `line.${r.line}`, message: r.reason ?? 'Unreadable.', code: 'refused' })),
            extra: { refused: refused.map((r) => ({ line: r.line, reason: r.reason })) },
          },
        )
      }
      const row = await importPlannedRows(tx, ctx, hooks, args.id, args.accountId, plan)
      // The file names the account's bank account from now on: first import, or a change accepted.
      if (check.status === 'new' || check.status === 'unknown') {
        const updated = await tx
          .updateTable('accounts')
          .set({ bank_account: check.file, updated_at: ctx.now })
          .where('household_id', '=', ctx.householdId)
          .where('id', '=', args.accountId)
          .returningAll()
          .executeTakeFirstOrThrow()
        ctx.emit('account.updated', { account: toAccount(updated) })
      }
      if (args.saveMapping && mapping)
        await keepMapping(tx, ctx.householdId, args.accountId, mapping, ctx.now)
      const account = await tx
        .selectFrom('accounts')
        .select('balance_cents')
        .where('household_id', '=', ctx.householdId)
        .where('id', '=', args.accountId)
        .executeTakeFirstOrThrow()
      return {
        batch: toImportBatch(row),
        counts: plan.counts,
        fileLedgerBalanceCents: plan.fileLedgerBalanceCents,
        accountBalanceCents: String(account.balance_cents),
        bankAccount: check,
      }
    },
  })
}

/**
 * Imports a plan's new, matched and ambiguous rows as one batch, in the caller's transaction:
 * through bulk create (aliases, rules, suggestions, the match engine, the overrun check), with
 * duplicates and refused rows left out. Bank files and bank connections both import this way.
 */
export async function importPlannedRows(
  tx: Tx<Database>,
  ctx: MutationContext,
  hooks: LedgerHooks,
  batchId: string,
  accountId: string,
  plan: ImportPlan,
  status?: (row: ImportPlan['rows'][number]) => 'pending' | 'cleared',
) {
  const kept = plan.rows.filter(
    (r) => r.outcome === 'new' || r.outcome === 'matched' || r.outcome === 'ambiguous',
  )
  const inputs = kept.map((r) => ({
    ...inputOf(batchId, accountId, r),
    ...(status && { status: status(r) }),
  }))
  // The plan looked for twins as the match engine does, in this transaction: a new row has none.
  const twinsOnlyFor = new Set(inputs.filter((_, i) => kept[i]!.outcome !== 'new').map((input) => input.id))
  const created: string[] = []
  const matched: ImportedMatch[] = []
  for (let i = 0; i < inputs.length; i += CHUNK) {
    // The plan left out the rows the account holds and the file's repeats, in this transaction.
    const result = await bulkCreateTransactions(tx, inputs.slice(i, i + CHUNK), ctx, hooks, {
      knownImportsChecked: true,
      twinsOnlyFor,
    })
    created.push(...result.items.map((t) => t.id))
    matched.push(
      ...result.matched.map((m) => ({
        transactionId: m.transactionId,
        matchedTransactionId: m.matchedTransactionId,
      })),
    )
  }
  const row = await tx
    .insertInto('import_batches')
    .values({
      household_id: ctx.householdId,
      id: batchId,
      account_id: accountId,
      format: plan.format,
      transaction_ids: created,
      matched: JSON.stringify(matched),
      duplicate_count: plan.counts.duplicate,
      refused_count: plan.counts.refused,
      file_ledger_balance_cents:
        plan.fileLedgerBalanceCents === null ? null : Number(plan.fileLedgerBalanceCents),
      created_at: ctx.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
  return row
}
