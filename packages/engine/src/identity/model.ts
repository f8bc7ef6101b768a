import type { Role, Scope } from '../scopes.ts'
import type { ApiKeyRow, HouseholdRow, UserRow } from './tables.ts'

/** A household as the API shows it. */
export interface Household {
  id: string
  name: string
  baseCurrency: string
  timeZone: string
  dataLanguage: string
  createdAt: string
  updatedAt: string
}

/** A member as the API shows it: the user's public face plus their role. */
export interface Member {
  userId: string
  name: string
  email: string | null
  role: Role
  joinedAt: string
}

/** The signed-in user's own profile. */
export interface User {
  id: string
  name: string
  email: string | null
  /** When the email was verified by a link mailed to it; null until then, and after it changes. */
  emailVerifiedAt: string | null
  timeZone: string | null
  defaultHouseholdId: string | null
  preferences: Record<string, unknown>
  createdAt: string
  updatedAt: string
}

/** An API key's metadata; the secret is never part of it. */
export interface ApiKey {
  id: string
  name: string
  prefix: string
  scopes: Scope[]
  createdAt: string
  lastUsedAt: string | null
  revokedAt: string | null
}

export function toHousehold(row: HouseholdRow): Household {
  return {
    id: row.id,
    name: row.name,
    baseCurrency: row.base_currency,
    timeZone: row.time_zone,
    dataLanguage: row.data_language,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}

export function toUser(row: UserRow): User {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    emailVerifiedAt: row.email_verified_at?.toISOString() ?? null,
    timeZone: row.time_zone,
    defaultHouseholdId: row.default_household_id,
    preferences: row.preferences,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}

export function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes as Scope[],
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
  }
}
