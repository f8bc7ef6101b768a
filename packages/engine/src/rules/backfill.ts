import { type Kysely, sql, type Transaction } from 'kysely'
import type { Database } from '../database.ts'
import { addLinks } from '../ledger/transactions/writes.ts'
import type { Classification, RuleChanges, RuleSet, RuleSubject } from './classify.ts'
import { recordRun } from './record.ts'

type Db = Kysely<Database> | Transaction<Database>

/** Rows read and classified per round trip, so memory stays flat over a large ledger. */
const PAGE = 5000
/** Rows per UPDATE statement, sent as one JSON array. */
const WRITE_CHUNK = 5000
/** Most changed rows a result lists; the counts cover them all. */
export const MAX_LISTED = 500

/** One row a run would change, and what each rule changed on it. */
export interface RowPlan {
  transactionId: string
  /** The row's date, by which the writes are ordered. */
  date: string
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
 * system row), page by page in id order, and returns the rows that would change. Reads only.
 */
export async function planRun(
  db: Db,
  householdId: string,
  rules: RuleSet,
): Promise<{ examined: number; plans: RowPlan[] }> {
  const plans: RowPlan[] = []
  let examined = 0
  if (rules.size === 0) return { examined, plans }
  const tagIds = [...new Set(rules.rules.flatMap((r) => r.action.addTagIds ?? []))]
  const flagIds = [...new Set(rules.rules.flatMap((r) => r.action.addFlagIds ?? []))]
  const readPage = async (after: string) => {
    const { rows } = await sql<CandidateRow>`
      select t.id, t.payee_id, p.name as payee_name, t.source, t.memo, t.category_id, t.account_id,
             t.amount_cents, t.date,
             exists (select 1 from transaction_splits s
                     where s.household_id = t.household_id and s.transaction_id = t.id) as has_splits
      from transactions t
      left join payees p on p.household_id = t.household_id and p.id = t.payee_id
      where t.household_id = ${householdId} and t.id > ${after}
        and t.deleted_at is null and t.merged_into_id is null
        and t.kind = 'normal' and t.status <> 'reconciled'
      order by t.id
      limit ${PAGE}`.execute(db)
    const last = rows.at(-1)?.id ?? after
    const [tags, flags] = await Promise.all([
      linksIn(db, householdId, 'transaction_tags', 'tag_id', tagIds, after, last),
      linksIn(db, householdId, 'transaction_flags', 'flag_id', flagIds, after, last),
    ])
    return { rows, last, tags, flags }
  }
  // The next page is read while this one is classified: the database works as the rules run.
  let next: ReturnType<typeof readPage> | null = readPage('')
  while (next) {
    const page: Awaited<ReturnType<typeof readPage>> = await next
    next = page.rows.length === PAGE ? readPage(page.last) : null
    // Awaited on the next turn; a classification that throws first must not leave it unhandled.
    next?.catch(() => {})
    for (const row of page.rows) {
      const subject: RuleSubject = {
        payeeId: row.payee_id,
        payeeName: row.payee_name,
        importedPayee: row.source === 'imported' ? row.payee_name : null,
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
        plans.push({
          transactionId: row.id,
          date: row.date,
          before: { categoryId: row.category_id, payeeId: row.payee_id, memo: row.memo },
          result,
        })
      }
    }
    examined += page.rows.length
  }
  return { examined, plans }
}

/** Which of `linkIds` the rows with ids in (after, last] already carry. */
async function linksIn(
  db: Db,
  householdId: string,
  table: 'transaction_tags' | 'transaction_flags',
  column: 'tag_id' | 'flag_id',
  linkIds: readonly string[],
  after: string,
  last: string,
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>()
  if (linkIds.length === 0) return out
  const rows = await sql<{ transaction_id: string; link_id: string }>`
    select transaction_id, ${sql.ref(column)} as link_id from ${sql.table(table)}
    where household_id = ${householdId} and transaction_id > ${after} and transaction_id <= ${last}
      and ${sql.ref(column)} in (${sql.join(linkIds)})`.execute(db)
  for (const r of rows.rows) {
    const list = out.get(r.transaction_id)
    if (list) list.push(r.link_id)
    else out.set(r.transaction_id, [r.link_id])
  }
  return out
}

/**
 * Writes planned changes set-based: one UPDATE per 2,000 rows for category, payee and memo (a
 * category set by a rule clears the row's suggestion), tag and flag links in bulk, and one
 * application record per (rule, row). Balances do not move: no rule changes an amount, a status
 * or an account.
 */
export async function writeRun(
  tx: Transaction<Database>,
  householdId: string,
  plans: readonly RowPlan[],
  now: Date,
): Promise<void> {
  // Written in date order, then category: each statement's rows then fall in few months, so the
  // budget sums its trigger adjusts (one per month, account and category) are few, not one per row.
  const changed = plans
    .filter(
      (p) =>
        p.result.categoryId !== p.before.categoryId ||
        p.result.payeeId !== p.before.payeeId ||
        p.result.memo !== p.before.memo,
    )
    .sort((a, b) =>
      a.date !== b.date
        ? a.date < b.date
          ? -1
          : 1
        : (a.result.categoryId ?? '') < (b.result.categoryId ?? '')
          ? -1
          : (a.result.categoryId ?? '') > (b.result.categoryId ?? '')
            ? 1
            : a.transactionId < b.transactionId
              ? -1
              : 1,
    )
  for (let i = 0; i < changed.length; i += WRITE_CHUNK) {
    // One JSON parameter per chunk rather than five bound values a row.
    const values = changed.slice(i, i + WRITE_CHUNK).map((p) => ({
      id: p.transactionId,
      category_id: p.result.categoryId,
      payee_id: p.result.payeeId,
      memo: p.result.memo,
      decided: p.result.categoryId !== p.before.categoryId,
    }))
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
  // Links alone change no transaction column; touch those rows so a reader sees them changed.
  const columns = new Set(changed)
  const linkOnly = plans.filter((p) => !columns.has(p)).map((p) => p.transactionId)
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
