import { type RawBuilder, type SqlBool, sql } from 'kysely'
import { defineQuery } from '../../mutator/define.ts'
import { decodeCursor, encodeCursor, pageOf } from '../../shared/cursor.ts'
import { parseInt8 } from '../../store/type-parsers.ts'
import type { SplitRow, TransactionRow } from '../tables.ts'
import { type Transaction, toTransaction } from './model.ts'
import { type ListTransactionsArgs, ListTransactionsArgsSchema } from './schema.ts'

type Condition = RawBuilder<SqlBool>

/** Rows whose category decision is still open: flagged for review, or carrying a suggestion. */
export const NEEDS_REVIEW = sql<SqlBool>`(t.needs_review or t.suggested_category_id is not null)`

/**
 * An outflow with no category and no splits on an on-budget account, that is neither a
 * transfer leg nor a system row.
 */
export const BARE_OUTFLOW = sql<SqlBool>`(t.amount_cents < 0 and t.category_id is null and t.kind = 'normal'
  and t.transfer_group_id is null
  and not exists (select 1 from transaction_splits s where s.household_id = t.household_id and s.transaction_id = t.id)
  and exists (select 1 from accounts a where a.household_id = t.household_id and a.id = t.account_id
    and a.type in ('cash', 'credit')))`

/** The budget's uncategorized bucket: bare outflows once cleared or reconciled. */
export const UNCATEGORIZED = sql<SqlBool>`(${BARE_OUTFLOW} and t.status in ('cleared', 'reconciled'))`

/** Rows waiting on the user: needs-review rows plus bare outflows that are not reconciled. */
export const ATTENTION = sql<SqlBool>`(${NEEDS_REVIEW} or (${BARE_OUTFLOW} and t.status <> 'reconciled'))`

function when(flag: boolean, condition: Condition): Condition {
  return flag ? condition : sql<SqlBool>`not ${condition}`
}

/** `%term%` for ILIKE, with the pattern characters of the term taken literally. */
function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

/** The WHERE conditions of a transactions list, each over the alias `t`. */
export function listConditions(householdId: string, args: ListTransactionsArgs): Condition[] {
  const c: Condition[] = [
    sql`t.household_id = ${householdId}`,
    sql`t.deleted_at is null`,
    sql`t.merged_into_id is null`,
  ]
  if (args.accountId) c.push(sql`t.account_id = ${args.accountId}`)
  if (args.dateFrom) c.push(sql`t.date >= ${args.dateFrom}::date`)
  if (args.dateTo) c.push(sql`t.date <= ${args.dateTo}::date`)
  if (args.minAmountCents !== undefined) c.push(sql`t.amount_cents >= ${args.minAmountCents}::bigint`)
  if (args.maxAmountCents !== undefined) c.push(sql`t.amount_cents <= ${args.maxAmountCents}::bigint`)
  if (args.source) c.push(sql`t.source = ${args.source}`)
  const statuses = args.statuses?.length ? args.statuses : args.status ? [args.status] : []
  if (statuses.length > 0) c.push(sql`t.status in (${sql.join(statuses)})`)
  if (args.payeeId) {
    c.push(sql`(t.payee_id = ${args.payeeId} or exists (select 1 from transaction_splits s
      where s.household_id = t.household_id and s.transaction_id = t.id and s.payee_id = ${args.payeeId}))`)
  }
  if (args.categoryId) {
    c.push(sql`(t.category_id = ${args.categoryId} or exists (select 1 from transaction_splits s
      where s.household_id = t.household_id and s.transaction_id = t.id and s.category_id = ${args.categoryId}))`)
  }
  if (args.needsReview !== undefined) c.push(when(args.needsReview, NEEDS_REVIEW))
  if (args.uncategorized !== undefined) c.push(when(args.uncategorized, UNCATEGORIZED))
  if (args.attention !== undefined) c.push(when(args.attention, ATTENTION))
  const flagged = sql<SqlBool>`exists (select 1 from transaction_flags f
    where f.household_id = t.household_id and f.transaction_id = t.id)`
  if (args.hasFlag !== undefined) c.push(when(args.hasFlag, flagged))
  if (args.flagIds?.length) {
    c.push(sql`exists (select 1 from transaction_flags f where f.household_id = t.household_id
      and f.transaction_id = t.id and f.flag_id in (${sql.join(args.flagIds)}))`)
  }
  const tagged = sql<SqlBool>`exists (select 1 from transaction_tags g
    where g.household_id = t.household_id and g.transaction_id = t.id)`
  if (args.hasTag !== undefined) c.push(when(args.hasTag, tagged))
  const tagIds = [...new Set([...(args.tagIds ?? []), ...(args.tagId ? [args.tagId] : [])])]
  if (tagIds.length > 0) {
    const matching = sql`select count(*) from transaction_tags g where g.household_id = t.household_id
      and g.transaction_id = t.id and g.tag_id in (${sql.join(tagIds)})`
    c.push(args.tagMode === 'all' ? sql`(${matching}) = ${tagIds.length}` : sql`(${matching}) > 0`)
  }
  if (args.search) {
    const p = containsPattern(args.search)
    c.push(sql`(t.memo ilike ${p}
      or exists (select 1 from payees p where p.household_id = t.household_id and p.id = t.payee_id and p.name ilike ${p})
      or exists (select 1 from categories k where k.household_id = t.household_id and k.id = t.category_id
        and k.name ilike ${p})
      or exists (select 1 from transaction_splits s
        left join payees sp on sp.household_id = s.household_id and sp.id = s.payee_id
        left join categories sk on sk.household_id = s.household_id and sk.id = s.category_id
        where s.household_id = t.household_id and s.transaction_id = t.id
          and (s.memo ilike ${p} or sp.name ilike ${p} or sk.name ilike ${p})))`)
  }
  return c
}

/**
 * One page of live rows, newest first (date, then id, both descending). The cursor holds the
 * sort key of the page's last row, so rows inserted meanwhile never shift later pages.
 */
export const listTransactions = defineQuery({
  audience: 'device',
  description: 'One page of live rows, newest first (date, then id, both descending).',
  scope: 'read:transactions',
  args: ListTransactionsArgsSchema,
  async run(db, args, ctx): Promise<{ items: Transaction[]; nextCursor: string | null }> {
    const conditions = listConditions(ctx.householdId, args)
    if (args.cursor) {
      const after = decodeCursor(args.cursor)
      conditions.push(sql`(t.date, t.id) < (${after.date}::date, ${after.id})`)
    }
    // One round trip: the page is chosen first, then only its rows gather their splits, tags and flags.
    const { rows } = await sql<PageRow>`
      select p.*,
        coalesce((select jsonb_agg(jsonb_build_object('id', s.id, 'position', s.position,
            'amount_cents', s.amount_cents::text, 'category_id', s.category_id, 'payee_id', s.payee_id,
            'memo', s.memo) order by s.position)
          from transaction_splits s where s.household_id = p.household_id and s.transaction_id = p.id),
          '[]'::jsonb) as page_splits,
        array(select g.tag_id from transaction_tags g
          where g.household_id = p.household_id and g.transaction_id = p.id) as page_tag_ids,
        array(select f.flag_id from transaction_flags f
          where f.household_id = p.household_id and f.transaction_id = p.id) as page_flag_ids
      from (
        select t.* from transactions t
        where ${sql.join(conditions, sql` and `)}
        order by t.date desc, t.id desc
        limit ${args.limit + 1}
      ) p
      order by p.date desc, p.id desc`.execute(db)
    const { page, nextCursor } = pageOf(rows, args.limit, (last) =>
      encodeCursor({ date: last.date, id: last.id }),
    )
    return { items: page.map(toPageTransaction), nextCursor }
  },
})

/** A page row with its splits, tag ids and flag ids gathered by the same query. */
type PageRow = TransactionRow & {
  page_splits: (Omit<SplitRow, 'amount_cents' | 'household_id' | 'transaction_id'> & {
    amount_cents: string
  })[]
  page_tag_ids: string[]
  page_flag_ids: string[]
}

function toPageTransaction(row: PageRow): Transaction {
  const { page_splits, page_tag_ids, page_flag_ids, ...transaction } = row
  return toTransaction(transaction, {
    splits: page_splits.map((s) => ({
      ...s,
      household_id: row.household_id,
      transaction_id: row.id,
      amount_cents: parseInt8(s.amount_cents),
    })),
    tagIds: page_tag_ids,
    flagIds: page_flag_ids,
  })
}
