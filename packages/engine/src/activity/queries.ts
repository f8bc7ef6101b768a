import { type Kysely, sql } from 'kysely'
import type { Database } from '../database.ts'
import type { HouseholdContext } from '../mutator/context.ts'
import { defineQuery } from '../mutator/define.ts'
import type { Scope } from '../scopes.ts'
import { decodeVersionCursor, encodeVersionCursor, pageOf } from '../shared/cursor.ts'
import { READ_POLICY } from '../sync/read-policy.ts'
import { syncDb } from '../sync/tables.ts'
import {
  actorLabel,
  describeChange,
  NAMED_REFERENCES,
  type NamedTable,
  type ResourceChange,
  type RowNames,
  summarize,
} from './model.ts'
import { ListActivityArgsSchema } from './schema.ts'

/** One activity entry as a member reads it. */
export interface ActivityEntry {
  id: string
  version: number
  occurredAt: string
  operation: string
  memberId: string
  actor: { kind: string; label: string }
  summary: string
  changes: ResourceChange[]
  /** The entry this one undid (an undo or redo), if any. */
  undoesEntryId: string | null
  /** The entry that undid this one, if any. */
  undoneByEntryId: string | null
}

/**
 * The tables whose rows `scopes` may read. Tables whose rows belong to one member (a
 * notification) are left out: their entries are their member's own, not the household's.
 */
export function readableTables(scopes: readonly Scope[]): string[] {
  return Object.entries(READ_POLICY)
    .filter(([, rule]) => 'read' in rule && !('rowRule' in rule) && scopes.includes(rule.read))
    .map(([table]) => table)
}

/**
 * GET H/activity: the household's entries newest first, each visible only when the reader may
 * read every table it changed and holds the read scope of its operation's own (so a key with
 * `read:budgets` alone sees budget changes and nothing of the ledger's).
 */
export const listActivity = defineQuery({
  audience: 'server',
  description: "Lists the household's activity, newest first: who changed what, before and after.",
  scope: null,
  cost: 'read-heavy',
  args: ListActivityArgsSchema,
  async run(db, args, ctx): Promise<{ items: ActivityEntry[]; nextCursor: string | null }> {
    let query = visibleEntries(db, ctx)
    if (args.memberId) query = query.where('a.user_id', '=', args.memberId)
    if (args.operation) query = query.where('a.operation', '=', args.operation)
    if (args.cursor) query = query.where('a.version', '<', decodeVersionCursor(args.cursor))
    const zone = sql`(select time_zone from households where id = ${ctx.householdId})`
    if (args.dateFrom)
      query = query.where(
        sql<boolean>`a.occurred_at >= (${args.dateFrom}::date::timestamp at time zone ${zone})`,
      )
    if (args.dateTo)
      query = query.where(
        sql<boolean>`a.occurred_at < ((${args.dateTo}::date + 1)::timestamp at time zone ${zone})`,
      )
    const touched: [string, string][] = []
    if (args.transactionId) touched.push(['transaction_id', args.transactionId])
    if (args.accountId) touched.push(['account_id', args.accountId])
    if (args.categoryId) touched.push(['category_id', args.categoryId])
    for (const [column, id] of touched) {
      query = query.where('a.version', 'in', (eb) => {
        let rows = eb
          .selectFrom('activity_changes as c')
          .select('c.version')
          .where('c.household_id', '=', ctx.householdId)
          .where(sql.ref(`c.${column}`), '=', id)
        if (args.month) rows = rows.where('c.month', '=', args.month)
        return rows
      })
    }
    if (args.month && touched.length === 0) {
      query = query.where('a.version', 'in', (eb) =>
        eb
          .selectFrom('activity_changes as c')
          .select('c.version')
          .where('c.household_id', '=', ctx.householdId)
          .where('c.month', '=', args.month!),
      )
    }
    const rows = await query
      .orderBy('a.version', 'desc')
      .limit(args.limit + 1)
      .execute()
    const { page, nextCursor } = pageOf(rows, args.limit, (last) => encodeVersionCursor(Number(last.version)))
    return { items: await presentEntries(db, ctx.householdId, page, readableTables(ctx.scopes)), nextCursor }
  },
})

/**
 * The household's entries the reader may see, with the names their actor labels need. Names
 * and links are scalar subqueries rather than joins: one transaction's history reads a few rows,
 * and planning six joins cost more than running them.
 */
export function visibleEntries(db: Kysely<Database>, ctx: HouseholdContext) {
  const readable = readableTables(ctx.scopes)
  const scopes = [...ctx.scopes]
  return syncDb(db)
    .selectFrom('activity as a')
    .select((eb) => [
      'a.id',
      'a.version',
      'a.occurred_at',
      'a.operation',
      'a.user_id',
      'a.actor_kind',
      'a.actor_ref',
      eb.selectFrom('users as u').select('u.name').whereRef('u.id', '=', 'a.user_id').as('member_name'),
      eb
        .selectFrom('api_keys as k')
        .select('k.name')
        .whereRef('k.id', '=', 'a.actor_ref')
        .where('a.actor_kind', '=', 'key')
        .as('key_name'),
      eb
        .selectFrom('sync_clients as d')
        .select('d.device_name')
        .whereRef('d.client_id', '=', 'a.actor_ref')
        .where('a.actor_kind', '=', 'device')
        .as('device_name'),
      eb
        .selectFrom('activity as x')
        .select('x.id')
        .whereRef('x.household_id', '=', 'a.household_id')
        .whereRef('x.version', '=', 'a.undone_by')
        .as('undone_by_id'),
      eb
        .selectFrom('activity as y')
        .select('y.id')
        .whereRef('y.household_id', '=', 'a.household_id')
        .whereRef('y.undone_by', '=', 'a.version')
        .limit(1)
        .as('undoes_id'),
    ])
    .where('a.household_id', '=', ctx.householdId)
    .where(
      sql<boolean>`not exists (select 1 from activity_changes c
        where c.household_id = a.household_id and c.version = a.version
          and not (c.table_name = any(${sql.val(readable)}::text[])))`,
    )
    .where(
      sql<boolean>`(a.scope is null or a.scope = any(${sql.val(scopes)}::text[])
        or 'read:' || split_part(a.scope, ':', 2) = any(${sql.val(scopes)}::text[]))`,
    )
}

type EntryRow = Awaited<ReturnType<ReturnType<typeof visibleEntries>['execute']>>[number]

/**
 * Entries with their row changes described and summarized in the household's currency, a
 * reference to an account, category, group, payee or tag named as it is now, where the reader
 * may read that table (`readable`).
 */
export async function presentEntries(
  db: Kysely<Database>,
  householdId: string,
  rows: readonly EntryRow[],
  readable: readonly string[],
): Promise<ActivityEntry[]> {
  if (rows.length === 0) return []
  // One statement: the entries' row images, each with the household's currency (an entry that
  // changed no row needs none).
  const changes = await db
    .selectFrom('activity_changes')
    .select((eb) => [
      'version',
      'table_name',
      'row_id',
      'before',
      'after',
      eb.selectFrom('households').select('base_currency').where('id', '=', householdId).as('currency'),
    ])
    .where('household_id', '=', householdId)
    .where(
      'version',
      'in',
      rows.map((r) => r.version),
    )
    .orderBy('version')
    .orderBy('seq')
    .execute()
  const currency = changes[0]?.currency ?? 'USD'
  const names = await referencedNames(db, householdId, changes, readable)
  const byVersion = new Map<number, ResourceChange[]>()
  for (const c of changes) {
    const list = byVersion.get(Number(c.version)) ?? []
    list.push(
      describeChange(
        { table: c.table_name, rowId: c.row_id, before: c.before, after: c.after },
        currency,
        names,
      ),
    )
    byVersion.set(Number(c.version), list)
  }
  return rows.map((r) => {
    const described = byVersion.get(Number(r.version)) ?? []
    const member = r.member_name ?? 'A former member'
    const name = r.actor_kind === 'key' ? r.key_name : r.actor_kind === 'device' ? r.device_name : null
    return {
      id: r.id,
      version: Number(r.version),
      occurredAt: new Date(r.occurred_at).toISOString(),
      operation: r.operation,
      memberId: r.user_id,
      actor: {
        kind: r.actor_kind,
        label: actorLabel({ kind: r.actor_kind, ref: r.actor_ref, member, name }),
      },
      summary: summarize(r.operation, described),
      changes: described,
      undoesEntryId: r.undoes_id ?? null,
      undoneByEntryId: r.undone_by_id ?? null,
    }
  })
}

/** The names of the rows the changes' images point at (`NAMED_REFERENCES`), in readable tables. */
async function referencedNames(
  db: Kysely<Database>,
  householdId: string,
  changes: readonly { before: Record<string, unknown> | null; after: Record<string, unknown> | null }[],
  readable: readonly string[],
): Promise<RowNames> {
  const wanted = new Map<NamedTable, Set<string>>()
  for (const c of changes)
    for (const image of [c.before, c.after]) {
      if (!image) continue
      for (const [column, table] of Object.entries(NAMED_REFERENCES)) {
        const id = image[column]
        if (typeof id !== 'string' || !readable.includes(table)) continue
        const ids = wanted.get(table) ?? new Set()
        ids.add(id)
        wanted.set(table, ids)
      }
    }
  const names = new Map<string, string>()
  for (const [table, ids] of wanted) {
    const rows = await db
      .selectFrom(table)
      .select(['id', 'name'])
      .where('household_id', '=', householdId)
      .where('id', 'in', [...ids])
      .execute()
    for (const r of rows) names.set(r.id, r.name)
  }
  return names
}
