import type { BankConnectionRow, BankConnectionStatus, BankLinkRow, BankSyncResult } from './tables.ts'

/** A remote account and where its rows go, as the API shows it. */
export interface BankLink {
  remoteId: string
  name: string
  institution: string | null
  currency: string
  /** The Hearth account its rows go to; null: listed and ignored. */
  accountId: string | null
  /** The balance the bank last reported, in cents, and when it held. */
  balanceCents: string | null
  balanceAt: string | null
}

/** A bank connection as every read shows it: never its access credential. */
export interface BankConnection {
  id: string
  provider: 'simplefin'
  institutions: string[]
  status: BankConnectionStatus
  attentionReason: string | null
  syncedThrough: string | null
  lastSyncedAt: string | null
  lastSync: BankSyncResult | null
  links: BankLink[]
  createdBy: string
  createdAt: string
  updatedAt: string
}

export function toBankLink(row: BankLinkRow): BankLink {
  return {
    remoteId: row.remote_id,
    name: row.name,
    institution: row.institution,
    currency: row.currency,
    accountId: row.account_id,
    balanceCents: row.balance_cents === null ? null : String(row.balance_cents),
    balanceAt: row.balance_at?.toISOString() ?? null,
  }
}

export function toBankConnection(row: BankConnectionRow, links: readonly BankLinkRow[]): BankConnection {
  const lastSync = typeof row.last_sync === 'string' ? JSON.parse(row.last_sync) : row.last_sync
  return {
    id: row.id,
    provider: row.provider,
    institutions: row.institutions,
    status: row.status,
    attentionReason: row.attention_reason,
    syncedThrough: row.synced_through?.toISOString() ?? null,
    lastSyncedAt: row.last_synced_at?.toISOString() ?? null,
    lastSync: lastSync ?? null,
    links: links.map(toBankLink),
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}

/** SimpleFIN's currency: an ISO 4217 code, or a URL naming a custom one (never linkable here). */
export function isCurrencyCode(currency: string): boolean {
  return /^[A-Z]{3}$/.test(currency)
}
