import type { SyncStatus } from '@hearth/client'

/** What the sync badge shows: its state (for styles and tests) and its words. */
export interface SyncBadgeState {
  state: 'stopped' | 'offline' | 'connecting' | 'syncing' | 'online'
  label: string
}

/**
 * Only what is true: "Offline" when the browser has no network or an attempt to reach the server
 * failed, never while a device that is online makes its first connection ("Connecting…"); a
 * replica with no rows yet is "Getting the household…" rather than a bare "Syncing".
 */
export function syncBadgeState(
  status: Pick<SyncStatus, 'state' | 'error' | 'retryAttempt' | 'version'> & {
    snapshot?: SyncStatus['snapshot']
  },
  browserOnline: boolean,
): SyncBadgeState {
  if (status.error) return { state: 'stopped', label: `Sync stopped: ${status.error.message}` }
  if (!browserOnline) return { state: 'offline', label: 'Offline' }
  if (status.state === 'offline') {
    return status.retryAttempt > 0
      ? { state: 'offline', label: 'Offline: cannot reach the server' }
      : { state: 'connecting', label: 'Connecting…' }
  }
  if (status.state === 'syncing') {
    // A snapshot's rows counted as they load: what is loading, not a spinner.
    const loading = status.snapshot
      ? `: ${status.snapshot.loadedRows.toLocaleString('en-US')} rows loaded`
      : ''
    if (status.version === null) return { state: 'syncing', label: `Getting the household${loading || '…'}` }
    return { state: 'syncing', label: loading ? `Reloading the household${loading}` : 'Syncing' }
  }
  return { state: 'online', label: 'Synced' }
}
