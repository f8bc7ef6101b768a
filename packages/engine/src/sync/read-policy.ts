import type { RowChange } from '../changes/changes.ts'
import type { Role, Scope } from '../scopes.ts'
import type { SyncDatabase } from './tables.ts'

/** Who a sync read serves: the key's scopes, and for row rules the member behind it. */
export interface SyncReader {
  scopes: readonly Scope[]
  userId?: string
  role?: Role
}

/** A signed-in member, as a row rule sees the reader. */
export interface RowReader {
  userId: string
  role: Role
}

/**
 * Whether a member may hold one row, judged from its full image (the same `to_jsonb` image a
 * snapshot reads and the change log records). It should read only columns fixed at insert
 * (`user_id`, `created_by`): a row that stopped matching would otherwise stay on a device.
 */
export type RowRule = (row: Record<string, unknown>, reader: RowReader) => boolean

/** How one table syncs: to keys with a scope, to some members' rows only, or never. */
export type TableReadRule =
  | { read: Scope }
  | { read: Scope; rowRule: RowRule; why: string }
  | { serverOnly: true; why: string }
  | { deviceOnly: true; why: string }

/** Every table a migrated store holds: the engine's, sync's own, and Kysely's migration records. */
export type StoreTable = keyof SyncDatabase | 'kysely_migration' | 'kysely_migration_lock'

/** Rows a member may hold when `column` names them (per-user rows such as notifications). */
export function ownRows(column = 'user_id'): RowRule {
  return (row, reader) => row[column] === reader.userId
}

/** Rows their creator holds, and every owner of the household (such as AI conversations). */
export function creatorOrOwner(column = 'created_by'): RowRule {
  return (row, reader) => reader.role === 'owner' || row[column] === reader.userId
}

/**
 * Sync's read policy, one entry per table. A device receives a table's rows only when its key
 * holds the same scope REST's list and get of that table need (a test holds the two equal); a
 * table missing here is a compile error, and at run time it is never sent.
 */
export const READ_POLICY = {
  households: { read: 'read:households' },
  memberships: { read: 'read:households' },
  accounts: { read: 'read:accounts' },
  exchange_rates: { read: 'read:transactions' },
  transactions: { read: 'read:transactions' },
  transaction_splits: { read: 'read:transactions' },
  transaction_tags: { read: 'read:transactions' },
  transaction_flags: { read: 'read:transactions' },
  flags: { read: 'read:transactions' },
  category_groups: { read: 'read:categories' },
  categories: { read: 'read:categories' },
  payees: { read: 'read:payees' },
  payee_aliases: { read: 'read:payees' },
  payee_merges: { read: 'read:payees' },
  payee_category_rejections: { read: 'read:payees' },
  tags: { read: 'read:tags' },
  budget_cells: { read: 'read:budgets' },
  budget_history: { read: 'read:budgets' },
  budget_activity: { read: 'read:budgets' },
  rules: { read: 'read:rules' },
  rule_applications: { read: 'read:rules' },
  rule_runs: { read: 'read:rules' },
  loan_terms: { read: 'read:accounts' },
  recurrences: { read: 'read:recurrences' },
  recurrence_dismissals: { read: 'read:recurrences' },
  import_batches: { read: 'read:transactions' },
  import_mappings: { read: 'read:transactions' },
  notifications: {
    read: 'read:notifications',
    rowRule: ownRows('user_id'),
    why: "A member's notifications are theirs alone: only their own devices hold them.",
  },

  users: { serverOnly: true, why: 'People span households; a device learns members from memberships.' },
  api_keys: { serverOnly: true, why: 'Key hashes are secrets.' },
  invitations: { serverOnly: true, why: 'Code hashes are secrets, and only owners list invitations.' },
  passwords: { serverOnly: true, why: 'Password hashes are secrets.' },
  sign_in_links: { serverOnly: true, why: 'Setup and reset codes are secrets.' },
  email_verifications: { serverOnly: true, why: 'Email verification codes are secrets.' },
  totp_factors: { serverOnly: true, why: 'A second factor’s secret, sealed.' },
  recovery_codes: { serverOnly: true, why: 'Recovery code hashes are secrets.' },
  passkeys: { serverOnly: true, why: 'A person’s passkeys are theirs and the server’s alone.' },
  webauthn_challenges: { serverOnly: true, why: 'Challenges of sign-ins in progress.' },
  device_refresh_tokens: { serverOnly: true, why: 'Refresh token hashes are secrets.' },
  oidc_identities: { serverOnly: true, why: 'Which provider account signs a person in is theirs alone.' },
  idempotency_keys: { serverOnly: true, why: 'Stored REST answers, per caller.' },
  outbox: { serverOnly: true, why: 'Side effects waiting for the server to send them.' },
  change_log: {
    serverOnly: true,
    why: 'The server reads it to build deltas; it is never itself a row to sync.',
  },
  household_clock: {
    serverOnly: true,
    why: "The server's version counter; a device's copy follows the versions deltas carry.",
  },
  rights_clock: {
    serverOnly: true,
    why: 'A number every rights change moves, for server instances to find a lost announcement.',
  },
  sync_clients: { serverOnly: true, why: "The server's record of each device and its lmid." },
  sync_rejections: { serverOnly: true, why: 'Refused mutations, told to their own device in welcome.' },
  sync_log_floors: { serverOnly: true, why: 'How far the change log was trimmed.' },
  activity: {
    serverOnly: true,
    why: 'Who changed what: the server records it when it commits a change; members read it over REST.',
  },
  activity_changes: {
    serverOnly: true,
    why: "The rows each activity entry changed, before and after; read with the entry, per the reader's scopes.",
  },
  budget_overruns: {
    serverOnly: true,
    why: 'Which overruns budget.overrun already announced; each replica keeps its own.',
  },
  budget_closings: {
    serverOnly: true,
    why: 'Month closings each store computes from its own rows and keeps as a cache; never synced.',
  },
  report_closings: {
    serverOnly: true,
    why: 'Report months each store computes from its own rows and keeps as a cache; never synced.',
  },
  forecast_days: {
    serverOnly: true,
    why: 'Daily spending sums each store keeps from its own rows by triggers, for forecasts; never synced.',
  },
  suggestion_generations: {
    serverOnly: true,
    why: "Each store's key for its trained category model, replaced by its own triggers; never synced.",
  },
  recurrence_announcements: {
    serverOnly: true,
    why: 'Which price changes recurrence.priceChanged already announced; the server alone announces.',
  },
  ai_consents: {
    serverOnly: true,
    why: "A member's consent to AI processing; the server checks it on every chat.",
  },
  ai_conversations: {
    serverOnly: true,
    why: 'Assistant conversations stay on the server, where chat runs; creator and owners read them over REST.',
  },
  ai_messages: { serverOnly: true, why: 'The messages of server-only conversations.' },
  ai_actions: {
    serverOnly: true,
    why: 'Writes the assistant proposed; only the server confirms and runs them.',
  },
  ai_usage: { serverOnly: true, why: 'Usage counters behind the assistant caps.' },
  ai_insights: {
    serverOnly: true,
    why: 'A server job writes insights outside any mutation; members read and dismiss them over REST.',
  },
  webhook_subscriptions: { serverOnly: true, why: 'Signing secrets never leave the server.' },
  webhook_deliveries: { serverOnly: true, why: "The server's log of what it sent to webhook receivers." },
  bank_connections: { serverOnly: true, why: "A bank provider's access credential never leaves the server." },
  bank_links: {
    serverOnly: true,
    why: 'Read with their connection over REST; the rows they bring sync as rows.',
  },
  notification_preferences: {
    serverOnly: true,
    why: 'Per user, outside any household; read and set over REST.',
  },
  push_subscriptions: {
    serverOnly: true,
    why: "A browser's push endpoint and keys, used only by the server.",
  },
  notes: {
    serverOnly: true,
    why: 'Shared notes sync as Yjs documents over /notes/ws, each device caching its own; never as rows.',
  },
  note_updates: { serverOnly: true, why: 'A note’s Yjs updates since its last compaction.' },
  kysely_migration: { serverOnly: true, why: "Each store's own migration record." },
  kysely_migration_lock: { serverOnly: true, why: "Each store's own migration lock." },

  device_state: { deviceOnly: true, why: "A replica's identity and cursor." },
  device_pending: { deviceOnly: true, why: "A replica's unconfirmed mutations." },
  device_undo: { deviceOnly: true, why: 'Row images from before pending mutations, for the rebase.' },
  device_history: {
    deviceOnly: true,
    why: 'Row images of the device’s last confirmed mutations, for an offline undo.',
  },
} as const satisfies Record<StoreTable, TableReadRule>

/** The tables a device may receive, by its key's scopes. */
export type ScopedTable = {
  [T in StoreTable]: (typeof READ_POLICY)[T] extends { read: Scope } ? T : never
}[StoreTable]

/** The scope a device needs to join a household's sync at all. */
export const SYNC_JOIN_SCOPE: Scope = 'read:households'

/** A read policy keyed by table name; sync reads `READ_POLICY`, tests may try rules of their own. */
export type ReadPolicy = Readonly<Record<string, TableReadRule>>

/** The policy's entry for `table`, or none for a table it does not name. */
export function readRule(table: string, policy: ReadPolicy = READ_POLICY): TableReadRule | undefined {
  return Object.hasOwn(policy, table) ? policy[table] : undefined
}

/** Whether `reader` may receive rows of `table` at all; false for a table the policy does not name. */
export function canReadTable(table: string, reader: SyncReader, policy: ReadPolicy = READ_POLICY): boolean {
  const rule = readRule(table, policy)
  return rule !== undefined && 'read' in rule && reader.scopes.includes(rule.read)
}

/**
 * Whether `reader` may hold one row of `table`. A table with a row rule also needs a signed-in
 * member to judge by; an anonymous read gets none of its rows.
 */
export function canReadRow(
  table: string,
  row: Record<string, unknown>,
  reader: SyncReader,
  policy: ReadPolicy = READ_POLICY,
): boolean {
  const rule = readRule(table, policy)
  if (rule === undefined || !('read' in rule) || !reader.scopes.includes(rule.read)) return false
  if (!('rowRule' in rule)) return true
  if (reader.userId === undefined || reader.role === undefined) return false
  return rule.rowRule(row, { userId: reader.userId, role: reader.role })
}

/**
 * The changes `reader` may receive. An upsert is judged by its row image; a delete carries only a
 * key, so it goes to every reader of its table (deleting a row a device never held does nothing).
 */
export function readableChanges<C extends Pick<RowChange, 'table' | 'row'>>(
  changes: readonly C[],
  reader: SyncReader,
  policy: ReadPolicy = READ_POLICY,
): C[] {
  return changes.filter((c) =>
    c.row === null ? canReadTable(c.table, reader, policy) : canReadRow(c.table, c.row, reader, policy),
  )
}
