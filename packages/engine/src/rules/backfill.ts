import { type Kysely, sql, type Transaction } from 'kysely'
import type { Database } from '../database.ts'
import { addLinks } from '../ledger/transactions/writes.ts'
import type { Classification, RuleChanges, RuleSet, RuleSubject } from './classify.ts'
import { recordRun } from './record.ts'

type Db = Kysely<Database> | Transaction<Database>

/** Rows read and classified per round trip, so memory stays flat over a large ledger. */
const PAGE = 5000
/** Rows per UPDATE of link-only rows. */
const WRITE_CHUNK = 5000
/** Most changed rows a result lists; the counts cover them all. */
export const MAX_LISTED = 500

/** One row a run would change, and what each rule changed on it. */
export interface RowPlan {
  transactionId: string
  before: { categoryId: string | null; payeeId: string | null; memo: string | null }
  result: Classification
}

/** What apply, apply-all and preview report. */
export interface RuleRunResult {
  /** Rows the rules were tested on: live, not reconciled, not system rows. */
  examinedCount: number
  /** Rows at least one rule changed. */
  changedCount: number
  /** (rule, row) pairs that changed something. */
  applicationCount: number
  /** The changed rows by id, at most 500; `truncated` says whether there were more. */
  items: { transactionId: string; applications: { ruleId: string; changes: RuleChanges }[] }[]
  truncated: boolean
}

interface CandidateRow {
  id: string
  payee_id: string | null
  payee_name: string | null
  imported_payee: string | null
  source: string
  memo: string | null
  category_id: string | null
  account_id: string
  amount_cents: number | string
  date: string
  has_splits: boolean
}

/**
 * Classifies every row a rule may touch (live, not folded into a twin, not reconciled, not a
 * system row) and returns the rows that would change, in id order. Rows are read 5,000 at a time
 * newest first (date, then id, along the register's index), so each page's rows fall in a few
 * months. `onPage` (a back-fill's writes) receives each page's changes as soon as the page is
 * classified, and runs while the next page is read and classified; without it, this only reads.
 */
export async function planRun(
  db: Db,
  householdId: string,
  rules: RuleSet,
  onPage?: (plans: RowPlan[]) => Promise<void>,
): Promise<{ examined: number; plans: RowPlan[] }> {
  const plans: RowPlan[] = []
  let examined = 0
  if (rules.size === 0) return { examined, plans }
  const tagIds = [...new Set(rules.rules.flatMap((r) => r.action.addTagIds ?? []))]
  const flagIds = [...new Set(rules.rules.flatMap((r) => r.action.addFlagIds ?? []))]
  const readPage = async (after: { date: string; id: string } | null) => {
    const { rows } = await sql<CandidateRow>`
      select t.id, t.payee_id, p.name as payee_name, t.source, t.memo, t.category_id, t.account_id,
             -- Rows imported before the bank's text was kept (migration 0026) test their payee's name.
             coalesce(t.imported_payee, case when t.source = 'imported' then p.name end) as imported_payee,
             t.amount_cents, t.date,
             exists (select 1 from transaction_splits s
                     where s.household_id = t.household_id and s.transaction_id = t.id) as has_splits
      from transactions t
      left join payees p on p.household_id = t.household_id and p.id = t.payee_id
      where t.household_id = ${householdId}
        and t.deleted_at is null and t.merged_into_id is null
        and t.kind = 'normal' and t.status <> 'reconciled'
        ${after === null ? sql`` : sql`and (t.date, t.id) < (${after.date}::date, ${after.id})`}
      order by t.date desc, t.id desc
      limit ${PAGE}`.execute(db)
    const ids = rows.map((r) => r.id)
    const [tags, flags] = await Promise.all([
      linksOf(db, householdId, 'transaction_tags', 'tag_id', tagIds, ids),
      linksOf(db, householdId, 'transaction_flags', 'flag_id', flagIds, ids),
    ])
    const last = rows.at(-1)
    return { rows, tags, flags, cursor: last ? { date: last.date, id: last.id } : null }
  }
  // The next page is read, and this one's changes written, while this one is classified.
  let next: ReturnType<typeof readPage> | null = readPage(null)
  let writing: Promise<void> = Promise.resolve()
  while (next) {
    const page: Awaited<ReturnType<typeof readPage>> = await next
    next = page.rows.length === PAGE ? readPage(page.cursor) : null
    // Awaited on the next turn; a classification that throws first must not leave it unhandled.
    next?.catch(() => {})
    const found: RowPlan[] = []
    for (const row of page.rows) {
      const subject: RuleSubject = {
        payeeId: row.payee_id,
        payeeName: row.payee_name,
        importedPayee: row.imported_payee,
        memo: row.memo,
        categoryId: row.category_id,
        accountId: row.account_id,
        amountCents: Number(row.amount_cents),
        date: row.date,
        tagIds: page.tags.get(row.id) ?? [],
        flagIds: page.flags.get(row.id) ?? [],
        hasSplits: row.has_splits,
      }
      const result = rules.classify(subject)
      if (result.applications.length > 0) {
        found.push({
          transactionId: row.id,
          before: { categoryId: row.category_id, payeeId: row.payee_id, memo: row.memo },
          result,
        })
      }
    }
    examined += page.rows.length
    plans.push(...found)
    await writing
    if (onPage && found.length > 0) {
      writing = onPage(found)
      writing.catch(() => {})
    }
  }
  await writing
  return { examined, plans: plans.sort((a, b) => (a.transactionId < b.transactionId ? -1 : 1)) }
}

/** Which of `linkIds` each of the rows carries already. */
async function linksOf(
  db: Db,
  householdId: string,
  table: 'transaction_tags' | 'transaction_flags',
  column: 'tag_id' | 'flag_id',
  linkIds: readonly string[],
  transactionIds: readonly string[],
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>()
  if (linkIds.length === 0 || transactionIds.length === 0) return out
  const rows = await sql<{ transaction_id: string; link_id: string }>`
    select transaction_id, ${sql.ref(column)} as link_id from ${sql.table(table)}
    where household_id = ${householdId} and transaction_id = any(${transactionIds}::text[])
      and ${sql.ref(column)} in (${sql.join(linkIds)})`.execute(db)
  for (const r of rows.rows) {
    const list = out.get(r.transaction_id)
    if (list) list.push(r.link_id)
    else out.set(r.transaction_id, [r.link_id])
  }
  return out
}

/**
 * Writes one page's planned changes to category, payee and memo in one UPDATE (a category set by
 * a rule clears the row's suggestion), sent as one JSON parameter. The page's rows fall in a few
 * months, so the budget sums the statement's trigger adjusts (one per month, account and
 * category) are few; in id order every statement touched every month.
 */
export async function writePage(
  tx: Transaction<Database>,
  householdId: string,
  plans: readonly RowPlan[],
  now: Date,
): Promise<void> {
  const values = plans.filter(changesColumns).map((p) => ({
    id: p.transactionId,
    category_id: p.result.categoryId,
    payee_id: p.result.payeeId,
    memo: p.result.memo,
    decided: p.result.categoryId !== p.before.categoryId,
  }))
  if (values.length === 0) return
  await sql`
    update transactions as t set
      category_id = v.category_id, payee_id = v.payee_id, memo = v.memo, updated_at = ${now},
      suggested_category_id = case when v.decided then null else t.suggested_category_id end,
      suggestion_confidence = case when v.decided then null else t.suggestion_confidence end,
      suggestion_reason = case when v.decided then null else t.suggestion_reason end
    from jsonb_to_recordset(${JSON.stringify(values)}::jsonb)
      as v(id text, category_id text, payee_id text, memo text, decided boolean)
    where t.household_id = ${householdId} and t.id = v.id`.execute(tx)
}

/** Whether a plan changes a column of the row itself (not only its links). */
function changesColumns(p: RowPlan): boolean {
  return (
    p.result.categoryId !== p.before.categoryId ||
    p.result.payeeId !== p.before.payeeId ||
    p.result.memo !== p.before.memo
  )
}

/**
 * Ends a back-fill whose pages `writePage` wrote: tag and flag links in bulk, a touch of the rows
 * whose only change is a link (so a reader sees them changed), and the run's records. Balances
 * do not move: no rule changes an amount, a status or an account.
 */
export async function finishRun(
  tx: Transaction<Database>,
  householdId: string,
  plans: readonly RowPlan[],
  now: Date,
): Promise<void> {
  await addLinks(
    tx,
    householdId,
    'tags',
    plans.flatMap((p) => p.result.addedTagIds.map((id) => [p.transactionId, id] as const)),
  )
  await addLinks(
    tx,
    householdId,
    'flags',
    plans.flatMap((p) => p.result.addedFlagIds.map((id) => [p.transactionId, id] as const)),
  )
  const linkOnly = plans.filter((p) => !changesColumns(p)).map((p) => p.transactionId)
  for (let i = 0; i < linkOnly.length; i += WRITE_CHUNK) {
    await tx
      .updateTable('transactions')
      .set({ updated_at: now })
      .where('household_id', '=', householdId)
      .where('id', 'in', linkOnly.slice(i, i + WRITE_CHUNK))
      .execute()
  }
  await recordRun(tx, householdId, plans, now)
}

/** The report of a run, listing at most 500 changed rows. */
export function runResult(examined: number, plans: readonly RowPlan[]): RuleRunResult {
  return {
    examinedCount: examined,
    changedCount: plans.length,
    applicationCount: plans.reduce((n, p) => n + p.result.applications.length, 0),
    items: plans.slice(0, MAX_LISTED).map((p) => ({
      transactionId: p.transactionId,
      applications: p.result.applications,
    })),
    truncated: plans.length > MAX_LISTED,
  }
}
