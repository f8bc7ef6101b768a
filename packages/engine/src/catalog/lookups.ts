import { type Kysely, sql, type Transaction } from 'kysely'
import type { Database } from '../database.ts'
import { conflict, notFound } from '../errors.ts'
import { MAX_POSITION } from './fields.ts'
import type { CatalogTables, CategoryGroupRow, CategoryRow, FlagRow, PayeeRow, TagRow } from './tables.ts'

type Db = Kysely<Database> | Transaction<Database>

/** The live (not soft-deleted) category with this id in the household, or 404. */
export async function requireCategory(db: Db, householdId: string, id: string): Promise<CategoryRow> {
  const row = await db
    .selectFrom('categories')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst()
  if (!row) throw notFound('Category', id)
  return row
}

/** The live category group with this id in the household, or 404. */
export async function requireCategoryGroup(
  db: Db,
  householdId: string,
  id: string,
): Promise<CategoryGroupRow> {
  const row = await db
    .selectFrom('category_groups')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst()
  if (!row) throw notFound('Category group', id)
  return row
}

/** The live payee with this id in the household, or 404. */
export async function requirePayee(db: Db, householdId: string, id: string): Promise<PayeeRow> {
  const row = await db
    .selectFrom('payees')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst()
  if (!row) throw notFound('Payee', id)
  return row
}

/** The tag with this id in the household, or 404. */
export async function requireTag(db: Db, householdId: string, id: string): Promise<TagRow> {
  const row = await db
    .selectFrom('tags')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('id', '=', id)
    .executeTakeFirst()
  if (!row) throw notFound('Tag', id)
  return row
}

/** The flag with this id in the household, or 404. */
export async function requireFlag(db: Db, householdId: string, id: string): Promise<FlagRow> {
  const row = await db
    .selectFrom('flags')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('id', '=', id)
    .executeTakeFirst()
  if (!row) throw notFound('Flag', id)
  return row
}

/**
 * Refuses a new row whose caller-chosen id is already used in the household, deleted rows
 * included, with 409 rather than a primary-key error.
 */
export async function assertIdFree(
  db: Db,
  table: keyof CatalogTables,
  householdId: string,
  id: string,
): Promise<void> {
  const row = await db
    .selectFrom(table)
    .select('id')
    .where('household_id', '=', householdId)
    .where('id', '=', id)
    .executeTakeFirst()
  if (row) throw idInUse(id)
}

function idInUse(id: string) {
  return conflict('ID_ALREADY_EXISTS', `The id ${id} is already in use.`, { id })
}

/** A live row of `table` holding `name` ignoring case (inside `groupId` for categories). */
function holdsName(table: NamedTable, name: string, groupId: string | undefined) {
  const live = table === 'category_groups' || table === 'categories' ? sql`and deleted_at is null` : sql``
  const group = groupId === undefined ? sql`` : sql`and group_id = ${groupId}`
  return sql<boolean>`(lower(name) = lower(${name}) ${live} ${group})`
}

type NamedTable = 'category_groups' | 'categories' | 'tags' | 'flags'

/**
 * The two checks a create of a named row makes before it writes, in one statement: a
 * caller-chosen id already in use is refused as `assertIdFree` refuses it (that check comes
 * first), and the live row holding `name` ignoring case is answered as `findNameHolder` answers
 * it. A create pays one round trip, or one call into PGlite, for both.
 */
export async function findNameHolderOfNew(
  db: Db,
  table: NamedTable,
  householdId: string,
  id: string,
  name: string,
  options: { groupId?: string } = {},
): Promise<string | null> {
  const rows = await db
    .selectFrom(table)
    .select('id')
    .where('household_id', '=', householdId)
    .where(sql<boolean>`(id = ${id} or ${holdsName(table, name, options.groupId)})`)
    .limit(2)
    .execute()
  if (rows.some((r) => r.id === id)) throw idInUse(id)
  return rows[0]?.id ?? null
}

/** The position after the last of the given rows; 0 when there are none. */
export async function nextPosition(
  db: Db,
  table: 'category_groups' | 'categories' | 'flags',
  householdId: string,
  groupId?: string,
): Promise<number> {
  let query = db
    .selectFrom(table)
    .select(sql<number>`coalesce(max(position)::bigint + 1, 0)`.as('next'))
    .where('household_id', '=', householdId)
  if (table !== 'flags') query = query.where(sql.ref('deleted_at'), 'is', null)
  if (groupId !== undefined) query = query.where(sql.ref('group_id'), '=', groupId)
  const { next } = await query.executeTakeFirstOrThrow()
  return Math.min(next, MAX_POSITION)
}

/** The live categories of the household (or of the given groups), in display order. */
export async function liveCategories(
  db: Db,
  householdId: string,
  groupIds?: readonly string[],
): Promise<CategoryRow[]> {
  if (groupIds && groupIds.length === 0) return []
  let query = db
    .selectFrom('categories')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('deleted_at', 'is', null)
  if (groupIds) query = query.where('group_id', 'in', groupIds)
  return query.orderBy('position').orderBy('id').execute()
}

/**
 * The id of a live row whose name equals `name` ignoring case, or null. For categories the
 * search stays inside `groupId`; `excludeId` skips the row being renamed.
 */
export async function findNameHolder(
  db: Db,
  table: NamedTable,
  householdId: string,
  name: string,
  options: { groupId?: string; excludeId?: string } = {},
): Promise<string | null> {
  let query = db
    .selectFrom(table)
    .select('id')
    .where('household_id', '=', householdId)
    .where(holdsName(table, name, options.groupId))
  if (options.excludeId !== undefined) query = query.where('id', '!=', options.excludeId)
  const row = await query.executeTakeFirst()
  return row?.id ?? null
}
