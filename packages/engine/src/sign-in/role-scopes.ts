import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../database.ts'
import { type Role, SCOPES, type Scope } from '../scopes.ts'

/**
 * The rights each role carries when its member signs in as a person (a session) rather than with
 * an API key of chosen scopes. Owners and members hold every scope; what only owners may do is the
 * role's own check (`ownerOnly`), as for keys.
 */
export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  owner: SCOPES,
  member: SCOPES,
}

/**
 * The scopes a session of `userId` carries: in each household, its role's, narrowed for a member
 * who joined by invitation to the scopes that invitation granted (a `viewer` preset stays read-only
 * when its person signs in with a password); joined across households, as a key's scopes apply in
 * each of its user's households alike. A user in no household yet gets a member's.
 */
export async function sessionScopes(
  db: Kysely<Database> | Transaction<Database>,
  userId: string,
): Promise<Scope[]> {
  const rows = await db
    .selectFrom('memberships as m')
    .leftJoin('invitations as i', (join) =>
      join.onRef('i.household_id', '=', 'm.household_id').onRef('i.redeemed_by', '=', 'm.user_id'),
    )
    .select(['m.role', 'i.scopes'])
    .where('m.user_id', '=', userId)
    .execute()
  if (rows.length === 0) return [...ROLE_SCOPES.member]
  const held = new Set<Scope>()
  for (const row of rows) {
    const granted = row.role === 'member' && row.scopes ? (row.scopes as Scope[]) : ROLE_SCOPES[row.role]
    for (const scope of granted) if (ROLE_SCOPES[row.role].includes(scope)) held.add(scope)
  }
  return SCOPES.filter((s) => held.has(s))
}
