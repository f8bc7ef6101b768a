import { type Kysely, sql, type Transaction as Tx, type Updateable } from 'kysely'
import { deriveUlid } from '../../catalog/index.ts'
import type { Database } from '../../database.ts'
import { notFound } from '../../errors.ts'
import { idList } from '../../shared/id-list.ts'
import { type BalanceEffect, balanceEffect } from '../model.ts'
import type { NewTransactionRow, SplitRow, TransactionRow, TransactionsTable } from '../tables.ts'
import { type Transaction, type TransactionDetails, toTransaction } from './model.ts'

type Db = Kysely<Database> | Tx<Database>

/** One part of a split as a mutator hands it over. */
export interface SplitDraft {
  amountCents: number
  categoryId: string | null
  payeeId: string | null
  memo: string | null
}

/** A new row with everything that hangs off it. */
export interface TransactionDraft {
  row: NewTransactionRow
  splits: readonly SplitDraft[]
  tagIds: readonly string[]
  flagIds: readonly string[]
}

export type TransactionUpdate = Updateable<TransactionsTable>

/** Which link table holds a row's tags or flags, and the column naming the linked row. */
export type LinkKind = 'tags' | 'flags'
const LINKS = {
  tags: { table: 'transaction_tags', column: 'tag_id' },
  flags: { table: 'transaction_flags', column: 'flag_id' },
} as const

/** Big inserts go in slices, well under PostgreSQL's 65,535 bind parameters. */
const CHUNK = 1000

/**
 * Per-account changes to the maintained balances, gathered while rows change and written
 * once, so every mutator keeps `balance_cents` equal to the sum of the account's live rows.
 */
export class BalanceDeltas {
  private readonly byAccount = new Map<string, BalanceEffect>()

  add(accountId: string, effect: BalanceEffect, sign: 1 | -1 = 1): void {
    const current = this.byAccount.get(accountId) ?? { total: 0, cleared: 0 }
    current.total += sign * effect.total
    current.cleared += sign * effect.cleared
    this.byAccount.set(accountId, current)
  }

  /** Records a row moving from `before` to `after` (either may be absent). */
  change(before: TransactionRow | null, after: TransactionRow | null): void {
    if (before) this.add(before.account_id, balanceEffect(before), -1)
    if (after) this.add(after.account_id, balanceEffect(after))
  }

  async apply(tx: Tx<Database>, householdId: string): Promise<void> {
    for (const [accountId, d] of this.byAccount) {
      if (d.total === 0 && d.cleared === 0) continue
      await tx
        .updateTable('accounts')
        .set({
          balance_cents: sql`balance_cents + ${d.total}::bigint`,
          cleared_balance_cents: sql`cleared_balance_cents + ${d.cleared}::bigint`,
        })
        .where('household_id', '=', householdId)
        .where('id', '=', accountId)
        .execute()
    }
    this.byAccount.clear()
  }
}

function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

/** The id of a row's n-th split: derived from the row's id, so a replay writes the same keys. */
export function splitId(transactionId: string, position: number): string {
  return deriveUlid(transactionId, `split:${position}`)
}

/** Rows per INSERT of new transactions: each statement fires the table's statement triggers (change log, budget activity) once. */
const ROWS_PER_INSERT = 5000

/**
 * One INSERT of many new rows, the rows travelling as one JSON parameter read by
 * `jsonb_populate_recordset`: a 10,000-row import is two statements with one bound value each,
 * not twenty with 12,500 each (which cost more to bind, send and parse than the rows cost to
 * write). The columns are those the drafts set, so the table's defaults fill the rest as before.
 */
async function insertRows(tx: Tx<Database>, drafts: readonly TransactionDraft[]): Promise<TransactionRow[]> {
  const given = (d: TransactionDraft) =>
    Object.entries(d.row)
      .filter(([, v]) => v !== undefined)
      .map(([k]) => k)
  const columns = given(drafts[0]!)
  const key = columns.join()
  // The drafts of one write set the same columns (draftOf builds whole rows); drafts that set
  // different ones would take null where a column's default belongs, so they go row by row.
  if (drafts.some((d) => given(d).join() !== key)) {
    const rows: TransactionRow[] = []
    for (const d of drafts)
      rows.push(await tx.insertInto('transactions').values(d.row).returningAll().executeTakeFirstOrThrow())
    return rows
  }
  const list = sql.join(columns.map((c) => sql.ref(c)))
  const json = JSON.stringify(drafts.map((d) => d.row))
  // Rows whose every defaulted column is given are what the drafts say (no trigger on the table
  // changes a row on its way in), so they are not read back: 10,000 rows of 27 columns cost more
  // to return and decode than to build here.
  const built = drafts.map(insertedRow)
  if (built.every((r) => r !== null)) {
    await sql`
      insert into transactions (${list})
      select ${list} from jsonb_populate_recordset(null::transactions, ${json}::jsonb)`.execute(tx)
    return built
  }
  const { rows } = await sql<TransactionRow>`
    insert into transactions (${list})
    select ${list} from jsonb_populate_recordset(null::transactions, ${json}::jsonb)
    returning *`.execute(tx)
  return rows
}

/**
 * The row an insert of this draft makes, as a read would return it, when the draft gives every
 * column the table would otherwise default other than to null (timestamps as dates); else null,
 * and the row is read back. Every column is named, so a new column does not compile until it is
 * placed here.
 */
function insertedRow({ row: r }: TransactionDraft): TransactionRow | null {
  if (
    r.kind === undefined ||
    r.needs_review === undefined ||
    r.possible_duplicate === undefined ||
    !(r.created_at instanceof Date) ||
    !(r.updated_at instanceof Date) ||
    (r.deleted_at != null && !(r.deleted_at instanceof Date))
  )
    return null
  return {
    household_id: r.household_id,
    id: r.id,
    account_id: r.account_id,
    date: r.date,
    amount_cents: r.amount_cents,
    payee_id: r.payee_id ?? null,
    category_id: r.category_id ?? null,
    memo: r.memo ?? null,
    status: r.status,
    source: r.source,
    kind: r.kind,
    imported_id: r.imported_id ?? null,
    transfer_group_id: r.transfer_group_id ?? null,
    needs_review: r.needs_review,
    suggested_category_id: r.suggested_category_id ?? null,
    suggestion_confidence: r.suggestion_confidence ?? null,
    suggestion_reason: r.suggestion_reason ?? null,
    possible_duplicate: r.possible_duplicate,
    matched_transaction_id: r.matched_transaction_id ?? null,
    merged_into_id: r.merged_into_id ?? null,
    prematch_date: r.prematch_date ?? null,
    prematch_status: r.prematch_status ?? null,
    created_at: r.created_at,
    updated_at: r.updated_at,
    deleted_at: r.deleted_at ?? null,
    external_id: r.external_id ?? null,
    imported_payee: r.imported_payee ?? null,
  }
}

/** Inserts rows with their splits, tags and flags, and books them on their accounts' balances. */
export async function insertTransactions(
  tx: Tx<Database>,
  householdId: string,
  drafts: readonly TransactionDraft[],
): Promise<TransactionRow[]> {
  if (drafts.length === 0) return []
  const byId = new Map<string, TransactionRow>()
  for (const slice of chunks(drafts, ROWS_PER_INSERT)) {
    for (const row of await insertRows(tx, slice)) byId.set(row.id, row)
  }
  const splitRows = drafts.flatMap((d) => splitRowsFor(householdId, d.row.id, d.splits))
  for (const slice of chunks(splitRows)) await tx.insertInto('transaction_splits').values(slice).execute()
  await addLinks(
    tx,
    householdId,
    'tags',
    drafts.flatMap((d) => d.tagIds.map((linkId) => [d.row.id, linkId] as const)),
  )
  await addLinks(
    tx,
    householdId,
    'flags',
    drafts.flatMap((d) => d.flagIds.map((linkId) => [d.row.id, linkId] as const)),
  )
  const deltas = new BalanceDeltas()
  const inserted = drafts.map((d) => byId.get(d.row.id)!)
  for (const row of inserted) deltas.change(null, row)
  await deltas.apply(tx, householdId)
  return inserted
}

/**
 * Applies one set of column changes to rows already read, returns them as they now are (in
 * the same order) and moves their amounts between balances as status, amount, account or
 * liveness changed.
 */
export async function updateTransactions(
  tx: Tx<Database>,
  householdId: string,
  before: readonly TransactionRow[],
  set: TransactionUpdate,
): Promise<TransactionRow[]> {
  if (before.length === 0) return []
  const rows = await tx
    .updateTable('transactions')
    .set(set)
    .where('household_id', '=', householdId)
    .where('id', '=', idList(before.map((r) => r.id)))
    .returningAll()
    .execute()
  const byId = new Map(rows.map((r) => [r.id, r]))
  const after = before.map((r) => byId.get(r.id)!)
  const deltas = new BalanceDeltas()
  before.forEach((b, i) => {
    deltas.change(b, after[i]!)
  })
  await deltas.apply(tx, householdId)
  return after
}

/** Convenience for one row. */
export async function updateTransaction(
  tx: Tx<Database>,
  householdId: string,
  before: TransactionRow,
  set: TransactionUpdate,
): Promise<TransactionRow> {
  const [after] = await updateTransactions(tx, householdId, [before], set)
  return after!
}

function splitRowsFor(householdId: string, transactionId: string, splits: readonly SplitDraft[]): SplitRow[] {
  return splits.map((s, position) => ({
    household_id: householdId,
    id: splitId(transactionId, position),
    transaction_id: transactionId,
    position,
    amount_cents: s.amountCents,
    category_id: s.categoryId,
    payee_id: s.payeeId,
    memo: s.memo,
  }))
}

/** Replaces a row's splits whole; an empty list makes it a plain row again. */
export async function replaceSplits(
  tx: Tx<Database>,
  householdId: string,
  transactionId: string,
  splits: readonly SplitDraft[],
): Promise<void> {
  await tx
    .deleteFrom('transaction_splits')
    .where('household_id', '=', householdId)
    .where('transaction_id', '=', transactionId)
    .execute()
  const rows = splitRowsFor(householdId, transactionId, splits)
  if (rows.length > 0) await tx.insertInto('transaction_splits').values(rows).execute()
}

/** Links (transaction, tag or flag) pairs; pairs already linked stay as they are. */
export async function addLinks(
  tx: Tx<Database>,
  householdId: string,
  kind: LinkKind,
  pairs: readonly (readonly [string, string])[],
): Promise<void> {
  const { table, column } = LINKS[kind]
  // The pairs travel as one JSON parameter per slice: a back-fill may link tens of thousands.
  for (const slice of chunks(pairs, 5000)) {
    await sql`
      insert into ${sql.table(table)} (household_id, id, transaction_id, ${sql.ref(column)})
      select ${householdId}, p.t || ':' || p.l, p.t, p.l
      from jsonb_to_recordset(${JSON.stringify(slice.map(([t, l]) => ({ t, l })))}::jsonb) as p(t text, l text)
      on conflict do nothing`.execute(tx)
  }
}

/** Unlinks the given tags or flags from the given rows (all of them when `linkIds` is omitted). */
export async function removeLinks(
  tx: Tx<Database>,
  householdId: string,
  kind: LinkKind,
  transactionIds: readonly string[],
  linkIds?: readonly string[],
): Promise<number> {
  if (transactionIds.length === 0 || linkIds?.length === 0) return 0
  const { table, column } = LINKS[kind]
  let query = tx
    .deleteFrom(table)
    .where('household_id', '=', householdId)
    .where('transaction_id', 'in', transactionIds)
  if (linkIds) query = query.where(sql.ref(column), 'in', linkIds)
  const result = await query.executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** Replaces a row's tags or flags with exactly these. */
export async function replaceLinks(
  tx: Tx<Database>,
  householdId: string,
  kind: LinkKind,
  transactionId: string,
  linkIds: readonly string[],
): Promise<void> {
  const { table, column } = LINKS[kind]
  let query = tx
    .deleteFrom(table)
    .where('household_id', '=', householdId)
    .where('transaction_id', '=', transactionId)
  if (linkIds.length > 0) query = query.where(sql.ref(column), 'not in', linkIds)
  await query.execute()
  await addLinks(
    tx,
    householdId,
    kind,
    linkIds.map((id) => [transactionId, id] as const),
  )
}

/** The splits, tag ids and flag ids of many rows, three queries in all. */
export async function loadDetails(
  db: Db,
  householdId: string,
  transactionIds: readonly string[],
): Promise<Map<string, TransactionDetails>> {
  const details = new Map<string, TransactionDetails>()
  if (transactionIds.length === 0) return details
  for (const id of transactionIds) details.set(id, { splits: [], tagIds: [], flagIds: [] })
  // Sequential on purpose: inside a transaction there is one connection to share.
  const splits = await db
    .selectFrom('transaction_splits')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('transaction_id', '=', idList(transactionIds))
    .execute()
  const tags = await db
    .selectFrom('transaction_tags')
    .select(['transaction_id', 'tag_id'])
    .where('household_id', '=', householdId)
    .where('transaction_id', '=', idList(transactionIds))
    .execute()
  const flags = await db
    .selectFrom('transaction_flags')
    .select(['transaction_id', 'flag_id'])
    .where('household_id', '=', householdId)
    .where('transaction_id', '=', idList(transactionIds))
    .execute()
  for (const s of splits) details.get(s.transaction_id)?.splits.push(s)
  for (const t of tags) details.get(t.transaction_id)?.tagIds.push(t.tag_id)
  for (const f of flags) details.get(f.transaction_id)?.flagIds.push(f.flag_id)
  return details
}

/** Rows as the API shows them, with their splits, tags and flags. */
export async function hydrate(
  db: Db,
  householdId: string,
  rows: readonly TransactionRow[],
): Promise<Transaction[]> {
  const details = await loadDetails(
    db,
    householdId,
    rows.map((r) => r.id),
  )
  return rows.map((r) => toTransaction(r, details.get(r.id)))
}

/** The live row (not deleted, not folded into a twin) with this id, or 404. */
export async function requireTransaction(db: Db, householdId: string, id: string): Promise<TransactionRow> {
  const row = await db
    .selectFrom('transactions')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .where('merged_into_id', 'is', null)
    .executeTakeFirst()
  if (!row) throw notFound('Transaction', id)
  return row
}

/**
 * Locks every cleared row of an account dated on or before `date` as reconciled. Cleared and
 * reconciled rows both count in the cleared balance, so balances do not move.
 */
export async function lockClearedRows(
  tx: Tx<Database>,
  householdId: string,
  accountId: string,
  date: string,
  now: Date,
): Promise<number> {
  const result = await tx
    .updateTable('transactions')
    .set({ status: 'reconciled', updated_at: now })
    .where('household_id', '=', householdId)
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .where('merged_into_id', 'is', null)
    .where('status', '=', 'cleared')
    .where('date', '<=', date)
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}
