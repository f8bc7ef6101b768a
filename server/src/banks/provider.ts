import type { FetchedWindow, RemoteAccount } from '@hearth/engine'

/**
 * A bank provider as the server reaches it. A second provider is one folder beside `simplefin/`
 * implementing this; the engine records and applies what any provider fetched the same way.
 */
export interface BankProvider {
  readonly name: 'simplefin'
  /** Trades the household's one-time setup token for a lasting access credential. */
  connect(setupToken: string): Promise<ConnectOutcome>
  /** The accounts the access reaches, with balances and no transactions. */
  listAccounts(access: string): Promise<FetchOutcome<{ accounts: RemoteAccount[]; errors: string[] }>>
  /** The accounts with their transactions of one window [start, end), in seconds since the epoch. */
  fetchWindow(access: string, start: number, end: number): Promise<FetchOutcome<FetchedWindow>>
  /** The longest window one request may ask for, in days. */
  readonly maxWindowDays: number
}

/** What a claim gave: an access credential, or the provider's refusal in its words. */
export type ConnectOutcome = { ok: true; access: string } | { ok: false; refused: string }

/**
 * What one fetch gave: the data, the provider refusing the access (revoked, expired, unpaid: the
 * household must act), or the provider unavailable (5xx, a timeout: worth retrying later).
 */
export type FetchOutcome<T> =
  | { ok: true; value: T }
  | { ok: false; kind: 'accessRefused' | 'unavailable'; message: string }
