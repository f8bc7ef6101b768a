import type { Transaction as Tx } from 'kysely'
import { deriveUlid } from '../catalog/model.ts'
import type { Database } from '../database.ts'
import { importPlannedRows } from '../imports/commit.ts'
import type { Statement, StatementRow } from '../imports/parse/index.ts'
import { parseCents } from '../imports/parse/statement.ts'
import { planStatement } from '../imports/plan.ts'
import { localDate } from '../ledger/model.ts'
import { deleteTransaction } from '../ledger/transactions/mutators/delete.ts'
import { defineUpdateTransaction } from '../ledger/transactions/mutators/update.ts'
import type { LedgerHooks } from '../ledger/transactions/pipeline.ts'
import type { MutationContext } from '../mutator/context.ts'
import { parseArgs } from '../mutator/parse-args.ts'
import { idList } from '../shared/id-list.ts'
import type { FetchedWindow, RemoteAccount, RemoteTransaction } from './schema.ts'
import type { BankLinkRow, BankSyncAccountResult } from './tables.ts'

/** A remote row read for the ledger: its day in the household's zone, cents, and whether it is pending. */
export interface ReadRow {
  row: StatementRow
  pending: boolean
}

/**
 * Reads a provider's transaction as a bank row: the day it posted (or, pending, the day it
 * happened) in the household's time zone, exact cents (a third decimal is refused, never
 * rounded), the payee as the bank wrote it, and the provider's id as the row's external id, so
 * a bank file of the same rows is a duplicate rather than a second copy.
 */
export function readRemoteRow(
  t: RemoteTransaction,
  line: number,
  timeZone: string,
  fallback: Date,
): ReadRow | { refused: string } {
  const cents = parseCents(t.amount)
  if (cents === null) return { refused: `The amount ${JSON.stringify(t.amount)} is not money in cents.` }
  const pending = t.pending || t.postedAt === null || t.postedAt === 0
  const at = pending ? (t.transactedAt ?? t.postedAt) : t.postedAt
  const date = localDate(at ? new Date(at * 1000) : fallback, timeZone)
  const payee = (t.payee ?? '').trim() || t.description.trim() || null
  const memo = t.payee?.trim() && t.description.trim() !== t.payee.trim() ? t.description.trim() : t.memo
  return {
    pending,
    row: { line, date, amountCents: cents, payee, memo: memo?.trim() || null, externalId: t.id },
  }
}

/**
 * Brings one window of one remote account into its linked account, in the caller's transaction:
 * rows the account holds already (by the provider's id) are duplicates, except a pending row the
 * bank has since posted or changed, which is updated in place (never a second copy); pending rows
 * of the window the bank no longer reports are taken off; every other row is planned and imported
 * as a bank file's would be (rules, payee clean-up, the match engine), as one undoable batch.
 */
export async function applyRemoteAccount(
  tx: Tx<Database>,
  ctx: MutationContext,
  hooks: LedgerHooks,
  link: BankLinkRow & { account_id: string },
  remote: RemoteAccount,
  window: FetchedWindow,
  syncId: string,
  timeZone: string,
): Promise<BankSyncAccountResult> {
  const accountId = link.account_id
  const refused: BankSyncAccountResult['refused'] = []
  const read: ReadRow[] = []
  remote.transactions.forEach((t, i) => {
    const r = readRemoteRow(t, i + 1, timeZone, ctx.now)
    if ('refused' in r) refused.push({ id: t.id, reason: r.refused })
    else read.push(r)
  })
  const ids = read.map((r) => r.row.externalId!)
  const held = new Map<
    string,
    { id: string; status: string; date: string; amount: number; deleted: boolean }
  >()
  for (let i = 0; i < ids.length; i += 5000) {
    const slice = ids.slice(i, i + 5000)
    for (const t of await tx
      .selectFrom('transactions')
      .select(['id', 'imported_id', 'status', 'date', 'amount_cents', 'deleted_at'])
      .where('household_id', '=', ctx.householdId)
      .where('account_id', '=', accountId)
      .where('imported_id', '=', idList(slice))
      .execute())
      held.set(t.imported_id!, {
        id: t.id,
        status: t.status,
        date: t.date,
        amount: Number(t.amount_cents),
        deleted: t.deleted_at !== null,
      })
  }

  // Pending rows the bank posted or changed since: the same row, brought up to date.
  const update = defineUpdateTransaction(hooks)
  let updated = 0
  let duplicate = 0
  const fresh: ReadRow[] = []
  const seen = new Set<string>()
  for (const r of read) {
    const id = r.row.externalId!
    if (seen.has(id)) {
      duplicate++
      continue
    }
    seen.add(id)
    const mine = held.get(id)
    if (!mine) {
      fresh.push(r)
      continue
    }
    if (mine.deleted || mine.status !== 'pending') {
      duplicate++
      continue
    }
    const changes = {
      ...(r.row.date !== mine.date && { date: r.row.date }),
      ...(r.row.amountCents !== mine.amount && { amountCents: r.row.amountCents }),
      ...(!r.pending && { status: 'cleared' as const }),
    }
    if (Object.keys(changes).length === 0) {
      duplicate++
      continue
    }
    await update.run(tx, parseArgs(update.args, { id: mine.id, ...changes }), ctx)
    updated++
  }

  // Pending rows of this window the bank reports no more: dropped, or replaced under another id.
  const windowStart = localDate(new Date(window.start * 1000), timeZone)
  const gone = await tx
    .selectFrom('transactions')
    .select('id')
    .where('household_id', '=', ctx.householdId)
    .where('account_id', '=', accountId)
    .where('source', '=', 'imported')
    .where('status', '=', 'pending')
    .where('deleted_at', 'is', null)
    .where('date', '>=', windowStart)
    .$if(ids.length > 0, (q) => q.where((eb) => eb.not(eb('imported_id', '=', idList(ids)))))
    .execute()
  for (const t of gone) await deleteTransaction.run(tx, { id: t.id }, ctx)

  const statement: Statement = {
    format: 'simplefin',
    currency: null,
    bankAccountId: null,
    ledgerBalance: null,
    rows: fresh.map((r) => r.row),
    refused: [],
  }
  const pendingIds = new Set(fresh.filter((r) => r.pending).map((r) => r.row.externalId!))
  const { plan } = await planStatement(tx, ctx.householdId, accountId, statement)
  const importing = plan.counts.new + plan.counts.matched + plan.counts.ambiguous
  const batchId = importing > 0 ? deriveUlid(syncId, `batch:${link.connection_id}:${link.remote_id}`) : null
  if (batchId)
    await importPlannedRows(tx, ctx, hooks, batchId, accountId, plan, (row) =>
      pendingIds.has(row.importedId!) ? 'pending' : 'cleared',
    )
  const account = await tx
    .selectFrom('accounts')
    .select('cleared_balance_cents')
    .where('household_id', '=', ctx.householdId)
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow()
  const bank = remote.balance === null ? null : parseCents(remote.balance)
  const cleared = Number(account.cleared_balance_cents)
  return {
    remoteId: remote.id,
    accountId,
    batchId,
    created: plan.counts.new + plan.counts.ambiguous,
    matched: plan.counts.matched,
    duplicate: duplicate + plan.counts.duplicate,
    updated,
    removed: gone.length,
    refused,
    bankBalanceCents: bank === null ? null : String(bank),
    accountBalanceCents: String(cleared),
    differenceCents: bank === null ? null : String(bank - cleared),
  }
}
