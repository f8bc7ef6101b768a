import { sql, type Transaction } from 'kysely'
import type { Database } from '../database.ts'
import { EngineError } from '../errors.ts'
import { idList } from '../shared/id-list.ts'
import { NameSchema } from '../shared/schema.ts'
import { assertIdFree } from './lookups.ts'
import { normalizePayeeName, type Payee, toPayee } from './model.ts'
import type { PayeeRow } from './tables.ts'

type Db = Transaction<Database>

/**
 * The oldest live payee whose normalized name equals that of `name`, or undefined. Payees
 * created through the API have distinct normalized names; the ordering only matters for rows
 * that predate that rule or came back from an unmerge.
 */
export async function findPayeeByName(
  tx: Db,
  householdId: string,
  name: string,
): Promise<PayeeRow | undefined> {
  return tx
    .selectFrom('payees')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('normalized_name', '=', normalizePayeeName(name))
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst()
}

/**
 * The live payee a transaction's `payeeName` means: an existing one whose normalized name
 * matches, or a new one with `newId`. The caller emits `payee.created` when `created` is true
 * (this helper has no event context). A blank or over-long name answers 400, an id already
 * in use 409 `ID_ALREADY_EXISTS`.
 */
export async function findOrCreatePayeeByName(
  tx: Db,
  householdId: string,
  name: string,
  newId: string,
  now: Date,
): Promise<{ payee: Payee; created: boolean }> {
  const parsed = NameSchema.safeParse(name)
  if (!parsed.success) {
    throw new EngineError(400, 'VALIDATION_FAILED', 'The request has invalid fields.', {
      errors: [{ path: 'payeeName', message: parsed.error.issues[0]?.message ?? 'Invalid payee name.' }],
    })
  }
  const existing = await findPayeeByName(tx, householdId, parsed.data)
  if (existing) return { payee: toPayee(existing), created: false }
  await assertIdFree(tx, 'payees', householdId, newId)
  const row = await tx
    .insertInto('payees')
    .values({
      household_id: householdId,
      id: newId,
      name: parsed.data,
      normalized_name: normalizePayeeName(parsed.data),
      category_id: null,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
  return { payee: toPayee(row), created: true }
}

/**
 * Creates many payees named by transactions in one statement, as `findOrCreatePayeeByName`
 * creates one: each name is checked (a blank or over-long one answers 400) and each new id must
 * be unused in the household (409 `ID_ALREADY_EXISTS`, naming the first taken in order). The
 * caller passes names no live payee bears, one per normalized form; the caller emits
 * `payee.created` for each payee returned, in the order given.
 */
export async function createPayeesByName(
  tx: Db,
  householdId: string,
  wanted: readonly { name: string; newId: string }[],
  now: Date,
): Promise<Payee[]> {
  if (wanted.length === 0) return []
  const values = wanted.map(({ name, newId }) => {
    const parsed = NameSchema.safeParse(name)
    if (!parsed.success) {
      throw new EngineError(400, 'VALIDATION_FAILED', 'The request has invalid fields.', {
        errors: [{ path: 'payeeName', message: parsed.error.issues[0]?.message ?? 'Invalid payee name.' }],
      })
    }
    return { id: newId, name: parsed.data, normalized_name: normalizePayeeName(parsed.data) }
  })
  const { rows: taken } = await sql<{ id: string }>`
    select id from payees
    where household_id = ${householdId} and id = ${idList(values.map((v) => v.id))}`.execute(tx)
  if (taken.length > 0) {
    const takenIds = new Set(taken.map((t) => t.id))
    await assertIdFree(tx, 'payees', householdId, values.find((v) => takenIds.has(v.id))!.id)
  }
  const { rows } = await sql<PayeeRow>`
    insert into payees (household_id, id, name, normalized_name, category_id, created_at, updated_at)
    select ${householdId}, p.id, p.name, p.normalized_name, null, ${now}::timestamptz, ${now}::timestamptz
    from jsonb_to_recordset(${JSON.stringify(values)}::jsonb) as p(id text, name text, normalized_name text)
    returning *`.execute(tx)
  const byId = new Map(rows.map((r) => [r.id, r]))
  return values.map((v) => toPayee(byId.get(v.id)!))
}
