import type { ColumnType, Generated, Insertable, Selectable } from 'kysely'
import type { Role } from '../scopes.ts'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>

/** A person who signs in; preferences are a free JSON blob the apps own. */
export interface UsersTable {
  id: string
  name: string
  email: string | null
  /** When the person followed a link mailed to `email` (migration 0049); null until then, and after a change. */
  email_verified_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  time_zone: string | null
  default_household_id: string | null
  preferences: ColumnType<Record<string, unknown>, string | undefined, string>
  created_at: Timestamp
  updated_at: Timestamp
}

/** The scope of almost all data: one family's shared books. */
export interface HouseholdsTable {
  id: string
  name: string
  base_currency: string
  time_zone: string
  data_language: string
  created_at: Timestamp
  updated_at: Timestamp
}

/** A user's place in a household and the role they hold there. */
export interface MembershipsTable {
  household_id: string
  user_id: string
  role: Role
  created_at: Timestamp
}

/** What a credential row is: a program's key, a browser's session or an SDK device. */
export type CredentialKind = 'key' | 'session' | 'device'

/** A bearer credential; only the SHA-256 of the secret is kept. */
export interface ApiKeysTable {
  id: string
  user_id: string
  name: string
  prefix: string
  key_hash: string
  scopes: string[]
  created_at: Timestamp
  last_used_at: Date | null
  revoked_at: Date | null
  /**
   * `key` for a program's key, `session` for a person's signed-in browser (sign-in/sessions.ts),
   * `device` for a signed-in SDK device (sign-in/devices.ts).
   */
  kind: ColumnType<CredentialKind, CredentialKind | undefined, CredentialKind>
  /** A session's absolute end; null for a key. */
  expires_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  /** A session ends this long after its last use; null for a key. */
  idle_seconds: ColumnType<number | null, number | null | undefined, number | null>
  user_agent: ColumnType<string | null, string | null | undefined, string | null>
  client_address: ColumnType<string | null, string | null | undefined, string | null>
}

/** An owner's single-use offer of a role and a key's scopes; only the code's SHA-256 is kept. */
export interface InvitationsTable {
  household_id: string
  id: string
  code_hash: string
  prefix: string
  role: Role
  scopes: string[]
  note: string | null
  created_by: string
  created_at: Timestamp
  expires_at: Timestamp
  redeemed_at: Date | null
  redeemed_by: string | null
  revoked_at: Date | null
}

/** The per-household version counter that sync reads; bumped once per mutation. */
export interface HouseholdClockTable {
  household_id: string
  version: Generated<number>
}

/**
 * One row: a number every committed change to a caller's rights moves (migration 0052), which a
 * server instance reads to find a rights change whose announcement it lost.
 */
export interface RightsClockTable {
  one: Generated<boolean>
  version: Generated<string>
}

export type UserRow = Selectable<UsersTable>
export type HouseholdRow = Selectable<HouseholdsTable>
export type MembershipRow = Selectable<MembershipsTable>
export type ApiKeyRow = Selectable<ApiKeysTable>
export type NewApiKey = Insertable<ApiKeysTable>
export type InvitationRow = Selectable<InvitationsTable>
