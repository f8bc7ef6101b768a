import type { Kysely, Transaction } from 'kysely'
import { normalizePayeeName } from '../catalog/model.ts'
import type { Database } from '../database.ts'
import { conflict, notFound } from '../errors.ts'
import type { AliasMatch, PayeeAliasRow } from './tables.ts'

type Db = Kysely<Database> | Transaction<Database>

/** The live alias `id` of payee `payeeId`, or 404. */
export async function requireAlias(
  db: Db,
  householdId: string,
  payeeId: string,
  id: string,
): Promise<PayeeAliasRow> {
  const row = await db
    .selectFrom('payee_aliases')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('payee_id', '=', payeeId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst()
  if (!row) throw notFound('Payee alias', id)
  return row
}

/** The live alias with this normalized form and way of matching, wherever it points, or undefined. */
export async function findAliasByNormalized(
  db: Db,
  householdId: string,
  normalized: string,
  match: AliasMatch = 'exact',
): Promise<PayeeAliasRow | undefined> {
  return db
    .selectFrom('payee_aliases')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('normalized_name', '=', normalized)
    .where('match', '=', match)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst()
}

/**
 * Refuses a spelling that already means a payee other than through a new alias of `payeeId`:
 * a live payee's own name (`payeeId`'s included) or another payee's live alias.
 */
export async function assertSpellingFree(
  db: Db,
  householdId: string,
  name: string,
  payeeId: string,
): Promise<void> {
  const normalized = normalizePayeeName(name)
  const payee = await db
    .selectFrom('payees')
    .select(['id', 'name'])
    .where('household_id', '=', householdId)
    .where('normalized_name', '=', normalized)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst()
  if (payee) {
    throw conflict(
      'PAYEE_ALIAS_TAKEN',
      payee.id === payeeId
        ? `"${name}" is already this payee's own name.`
        : `"${name}" is the name of payee "${payee.name}"; merge the two payees instead.`,
      { payeeId: payee.id },
    )
  }
  const alias = await findAliasByNormalized(db, householdId, normalized)
  if (alias && alias.payee_id !== payeeId) {
    throw conflict('PAYEE_ALIAS_TAKEN', `"${name}" is already an alias of another payee.`, {
      payeeId: alias.payee_id,
      aliasId: alias.id,
    })
  }
}

/** Refuses an alias id already used, by a deleted alias too. */
export async function assertAliasIdFree(db: Db, householdId: string, id: string): Promise<void> {
  const row = await db
    .selectFrom('payee_aliases')
    .select('id')
    .where('household_id', '=', householdId)
    .where('id', '=', id)
    .executeTakeFirst()
  if (row) throw conflict('ID_ALREADY_EXISTS', `The id ${id} is already in use.`, { id })
}
