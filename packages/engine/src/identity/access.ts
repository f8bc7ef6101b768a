import type { Kysely } from 'kysely'
import type { Database } from '../database.ts'
import type { Role, Scope } from '../scopes.ts'

/** A live key, resolved to its user and scopes. */
export interface ResolvedKey {
  keyId: string
  userId: string
  scopes: Scope[]
}

/** How stale `last_used_at` may get before a request writes it again; keeps reads read-only. */
const LAST_USED_GRANULARITY_MS = 60_000

/** Finds the unrevoked key with this hash and records its use, at most once a minute. */
export async function findActiveKey(
  db: Kysely<Database>,
  keyHash: string,
  now: Date,
): Promise<ResolvedKey | null> {
  const row = await db
    .selectFrom('api_keys')
    .select(['id', 'user_id', 'scopes', 'last_used_at'])
    .where('key_hash', '=', keyHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
  if (!row) return null
  if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() > LAST_USED_GRANULARITY_MS) {
    await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', row.id).execute()
  }
  return { keyId: row.id, userId: row.user_id, scopes: row.scopes as Scope[] }
}

/** A user's membership in a household, by id or by the word `current` (their default household). */
export async function resolveMembership(
  db: Kysely<Database>,
  userId: string,
  householdRef: string,
): Promise<{ householdId: string; role: Role } | null> {
  let householdId = householdRef
  if (householdRef === 'current') {
    const user = await db
      .selectFrom('users')
      .select('default_household_id')
      .where('id', '=', userId)
      .executeTakeFirst()
    if (!user?.default_household_id) return null
    householdId = user.default_household_id
  }
  const row = await db
    .selectFrom('memberships')
    .select(['household_id', 'role'])
    .where('user_id', '=', userId)
    .where('household_id', '=', householdId)
    .executeTakeFirst()
  return row ? { householdId: row.household_id, role: row.role } : null
}
