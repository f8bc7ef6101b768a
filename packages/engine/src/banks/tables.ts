import type { ColumnType, Selectable } from 'kysely'

type Timestamp = ColumnType<Date, Date | string, Date | string>
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>

/** Whether a connection syncs, or waits for its owner (access revoked or expired at the provider). */
export type BankConnectionStatus = 'active' | 'needsAttention'

/** What the last sync of a connection did, per linked account, and what the provider said. */
export interface BankSyncResult {
  syncId: string
  at: string
  outcome: 'synced' | 'partial' | 'failed'
  /** The windows asked for and applied, each [start, end) in ISO instants. */
  windows: { start: string; end: string }[]
  accounts: BankSyncAccountResult[]
  /** The provider's own messages (SimpleFIN `errors`), shown to the household as they came. */
  providerErrors: string[]
  /** Why the sync stopped short, in words; null when it did not. */
  error: string | null
}

/** One linked account's share of a sync. */
export interface BankSyncAccountResult {
  remoteId: string
  accountId: string
  batchId: string | null
  created: number
  matched: number
  duplicate: number
  /** Pending rows the bank has since posted, or changed: updated in place. */
  updated: number
  /** Pending rows the bank no longer reports: taken off the ledger. */
  removed: number
  refused: { id: string; reason: string }[]
  /** The balance the bank reports, beside the account's after the sync. */
  bankBalanceCents: string | null
  accountBalanceCents: string
  differenceCents: string | null
}

/** A household's connection to a bank provider; its access credential is sealed by the server. */
export interface BankConnectionsTable {
  household_id: string
  id: string
  provider: 'simplefin'
  /** SHA-256 of the setup token it was claimed with: a token claimed twice is told apart. */
  setup_token_hash: string
  access_sealed: string
  institutions: ColumnType<string[], string[] | undefined, string[]>
  status: ColumnType<BankConnectionStatus, BankConnectionStatus | undefined, BankConnectionStatus>
  attention_reason: string | null
  /** Rows up to this instant have been asked for and applied. */
  synced_through: NullableTimestamp
  /** A sync under way holds the connection until then, so two servers never sync it at once. */
  sync_lease_until: NullableTimestamp
  last_sync: ColumnType<BankSyncResult | null, string | null | undefined, string | null>
  last_synced_at: NullableTimestamp
  created_by: string
  created_at: Timestamp
  updated_at: Timestamp
}

/** One account at the provider, and the Hearth account its rows go to (none: listed, ignored). */
export interface BankLinksTable {
  household_id: string
  connection_id: string
  remote_id: string
  name: string
  institution: string | null
  currency: string
  account_id: string | null
  balance_cents: ColumnType<number | null, number | null | undefined, number | null>
  balance_at: NullableTimestamp
  created_at: Timestamp
  updated_at: Timestamp
}

export type BankConnectionRow = Selectable<BankConnectionsTable>
export type BankLinkRow = Selectable<BankLinksTable>

/** The bank connections domain's tables. */
export interface BankTables {
  bank_connections: BankConnectionsTable
  bank_links: BankLinksTable
}
