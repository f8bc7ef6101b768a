import { type ExpressionBuilder, type Kysely, sql } from 'kysely'
import type { Database } from '../database.ts'
import { isStorableText } from '../mutator/parse-args.ts'
import type { Role, Scope } from '../scopes.ts'
import type { CredentialKind } from './tables.ts'

/** A live key, resolved to its user and scopes. */
export interface ResolvedKey {
  keyId: string
  userId: string
  scopes: Scope[]
  /** A program's key, a person's session (a cookie) or device; absent where it does not matter. */
  kind?: CredentialKind
}

/**
 * Whether a credential row can be used at `now`: not revoked and, for a session, neither past its
 * absolute end nor idle longer than its idle limit. Every lookup of a credential filters by it.
 */
export function liveCredential(now: Date) {
  return (eb: ExpressionBuilder<Database, 'api_keys'>) =>
    eb.and([
      eb('api_keys.revoked_at', 'is', null),
      eb.or([eb('api_keys.expires_at', 'is', null), eb('api_keys.expires_at', '>', now)]),
      eb.or([
        eb('api_keys.idle_seconds', 'is', null),
        sql<boolean>`coalesce(api_keys.last_used_at, api_keys.created_at) + api_keys.idle_seconds * interval '1 second' > ${now}`,
      ]),
    ])
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
    .where(liveCredential(now))
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
  // Text PostgreSQL cannot hold (a NUL from `%00`, say) names no household; SQL would fail on it.
  if (!isStorableText(householdRef)) return null
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

/** A request's caller and, when it names a household, their membership of it. */
export interface RequestAccess {
  key: ResolvedKey
  /** Null when the household does not exist, the caller is not in it, or `current` is unset. */
  membership: { householdId: string; role: Role } | null
}

/**
 * Resolves a key and the caller's membership of `householdRef` (an id or `current`) in one
 * query, so a household request pays one round trip before its own work rather than two.
 */
export async function resolveRequestAccess(
  db: Kysely<Database>,
  keyHash: string,
  householdRef: string | null,
  now: Date,
): Promise<RequestAccess | null> {
  // Text PostgreSQL cannot hold (a NUL from `%00`, say) names no household; SQL would fail on it.
  const ref = householdRef !== null && isStorableText(householdRef) ? householdRef : null
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('users as u', 'u.id', 'api_keys.user_id')
    .leftJoin('memberships as m', (join) =>
      join
        .onRef('m.user_id', '=', 'api_keys.user_id')
        .on((eb) =>
          ref === 'current'
            ? eb('m.household_id', '=', eb.ref('u.default_household_id'))
            : eb('m.household_id', '=', ref ?? sql<string>`null`),
        ),
    )
    .select([
      'api_keys.id',
      'api_keys.user_id',
      'api_keys.scopes',
      'api_keys.last_used_at',
      'api_keys.kind',
      'm.household_id',
      'm.role',
    ])
    .where('api_keys.key_hash', '=', keyHash)
    .where(liveCredential(now))
    .executeTakeFirst()
  if (!row) return null
  if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() > LAST_USED_GRANULARITY_MS) {
    await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', row.id).execute()
  }
  return {
    key: { keyId: row.id, userId: row.user_id, scopes: row.scopes as Scope[], kind: row.kind },
    membership: row.household_id && row.role ? { householdId: row.household_id, role: row.role } : null,
  }
}
