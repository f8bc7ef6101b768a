import {
  type BankConnection,
  type FetchedWindow,
  type HouseholdContext,
  newUlid,
  operations,
  runMutation,
  type Store,
} from '@hearth/engine'
import type { SecretBox } from '../webhooks/secret-box.ts'
import type { UrlGuardOptions } from '../webhooks/url-guard.ts'
import type { BankProvider } from './provider.ts'
import { simplefinProvider } from './simplefin.ts'

const DAY_SECONDS = 86_400

/** How a server syncs bank connections (docs/api/bank-connections.md, Syncing). */
export interface BankSyncSettings {
  provider: BankProvider
  /** Seals and opens access credentials: the server's secret key (`HEARTH_WEBHOOK_SECRET_KEY`). */
  box: SecretBox
  /** How far back a connection's first sync reaches; 90 days. */
  initialDays: number
  /** How far before the last sync each sync asks again, for rows posted late and pending ones; 10 days. */
  overlapDays: number
  /** Waits before each retry of a window the provider failed (5xx, timeout); then the sync stops. */
  retryDelaysMs: readonly number[]
  /** The least time between two syncs of one connection; a sooner "sync now" is a 429. */
  minGapMs: number
  /** How often the job syncs each active connection. */
  intervalMs: number
}

/** The windows [start, end) of a sync, in seconds, each at most `maxDays` long, oldest first. */
export function syncWindows(
  syncedThrough: Date | null,
  now: Date,
  settings: Pick<BankSyncSettings, 'initialDays' | 'overlapDays'>,
  maxDays: number,
): { start: number; end: number }[] {
  const end = Math.floor(now.getTime() / 1000)
  const from = syncedThrough
    ? Math.floor(syncedThrough.getTime() / 1000) - settings.overlapDays * DAY_SECONDS
    : end - settings.initialDays * DAY_SECONDS
  const windows: { start: number; end: number }[] = []
  for (let start = Math.min(from, end - DAY_SECONDS); start < end; start += maxDays * DAY_SECONDS)
    windows.push({ start, end: Math.min(end, start + maxDays * DAY_SECONDS) })
  return windows
}

/**
 * Fetches a connection's windows one after another, each retried after the configured waits when
 * the provider is unavailable. It stops at the first window that fails for good: the windows
 * before it are whole and are applied; the failed one never is, so none is half written.
 */
export async function fetchWindows(
  access: string,
  syncedThrough: Date | null,
  now: Date,
  settings: BankSyncSettings,
  signal?: AbortSignal,
): Promise<{
  windows: FetchedWindow[]
  failure: { kind: 'accessRefused' | 'unavailable'; message: string } | null
}> {
  const windows: FetchedWindow[] = []
  for (const w of syncWindows(syncedThrough, now, settings, settings.provider.maxWindowDays)) {
    for (let attempt = 0; ; attempt++) {
      const got = await settings.provider.fetchWindow(access, w.start, w.end)
      if (got.ok) {
        windows.push(got.value)
        break
      }
      const delay = settings.retryDelaysMs[attempt]
      if (got.kind === 'accessRefused' || delay === undefined || signal?.aborted)
        return { windows, failure: { kind: got.kind, message: got.message } }
      await new Promise((resolve) => setTimeout(resolve, delay))
    }
  }
  return { windows, failure: null }
}

/**
 * Opens a connection's sealed access, or says why not as a refusal the connection shows: sealed
 * under a key this server does not hold (`HEARTH_WEBHOOK_SECRET_KEY` changed without its previous
 * key), which waits for the key or a new connection, as a revoked access does.
 */
export function openAccess(
  box: SecretBox,
  sealed: string,
): { ok: true; access: string } | { ok: false; failure: { kind: 'accessRefused'; message: string } } {
  try {
    return { ok: true, access: box.open(sealed) }
  } catch {
    return {
      ok: false,
      failure: {
        kind: 'accessRefused',
        message:
          'This server cannot open the connection’s access: it was sealed under another HEARTH_WEBHOOK_SECRET_KEY. Set that key (or it as the previous key), or connect again.',
      },
    }
  }
}

/** How long a sync may hold its connection before another server may take it over. */
const SYNC_LEASE_MS = 10 * 60_000

/**
 * Takes a connection for one sync: none other starts on it (on this server or another sharing
 * the store) until this one applies its result or its lease runs out. Null when a sync holds it.
 */
export async function claimSync(store: Store, householdId: string, id: string, now: Date) {
  return store.db
    .updateTable('bank_connections')
    .set({ sync_lease_until: new Date(now.getTime() + SYNC_LEASE_MS) })
    .where('household_id', '=', householdId)
    .where('id', '=', id)
    .where((eb) => eb.or([eb('sync_lease_until', 'is', null), eb('sync_lease_until', '<', now)]))
    .returning(['access_sealed', 'synced_through'])
    .executeTakeFirst()
}

/** Fetches what a connection has new and applies it as `bankConnections.sync`, as `ctx`; null when another sync holds it. */
export async function syncConnection(
  store: Store,
  ctx: HouseholdContext,
  connectionId: string,
  settings: BankSyncSettings,
  signal?: AbortSignal,
): Promise<BankConnection | null> {
  const row = await claimSync(store, ctx.householdId, connectionId, ctx.now)
  if (!row) return null
  const opened = openAccess(settings.box, row.access_sealed)
  const fetched = opened.ok
    ? await fetchWindows(opened.access, row.synced_through, ctx.now, settings, signal)
    : { windows: [], failure: opened.failure }
  const { result } = await runMutation(
    store.db,
    operations.bankConnections.sync,
    { id: connectionId, syncId: newUlid(), ...fetched },
    ctx,
  )
  return result
}

/** The settings a server uses unless told otherwise (docs/api/bank-connections.md, Syncing). */
export const BANK_SYNC_DEFAULTS: BankSyncTuning = {
  initialDays: 90,
  overlapDays: 10,
  retryDelaysMs: [1_000, 5_000, 30_000],
  minGapMs: 15 * 60_000,
  intervalMs: 6 * 3_600_000,
  timeoutMs: 30_000,
}

/** The numbers of a server's bank sync, apart from its provider and secret box. */
export interface BankSyncTuning {
  initialDays: number
  overlapDays: number
  retryDelaysMs: readonly number[]
  minGapMs: number
  intervalMs: number
  timeoutMs: number
}

/** SimpleFIN through the server's URL guard, its access sealed by the server's secret box. */
export function defaultBankSyncSettings(
  webhooks: { box: SecretBox; guard: UrlGuardOptions },
  overrides: Partial<BankSyncTuning> = {},
): BankSyncSettings {
  const s = { ...BANK_SYNC_DEFAULTS, ...overrides }
  return {
    provider: simplefinProvider({ guard: webhooks.guard, timeoutMs: s.timeoutMs }),
    box: webhooks.box,
    initialDays: s.initialDays,
    overlapDays: s.overlapDays,
    retryDelaysMs: s.retryDelaysMs,
    minGapMs: s.minGapMs,
    intervalMs: s.intervalMs,
  }
}
