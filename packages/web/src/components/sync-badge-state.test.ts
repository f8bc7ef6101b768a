import { describe, expect, it } from 'vitest'
import { syncBadgeState } from './sync-badge-state.ts'

const base = { state: 'online' as const, error: null, retryAttempt: 0, version: 40 }

describe('syncBadgeState', () => {
  it('says Synced when connected and caught up', () => {
    expect(syncBadgeState(base, true)).toEqual({ state: 'online', label: 'Synced' })
  })

  it('says Connecting, not Offline, while an online device makes its first connection', () => {
    expect(syncBadgeState({ ...base, state: 'offline', version: null }, true)).toEqual({
      state: 'connecting',
      label: 'Connecting…',
    })
  })

  it('says Offline once an attempt to reach the server failed, or the browser has no network', () => {
    expect(syncBadgeState({ ...base, state: 'offline', retryAttempt: 2 }, true).state).toBe('offline')
    expect(syncBadgeState(base, false)).toEqual({ state: 'offline', label: 'Offline' })
  })

  it('says the household is arriving while a new replica takes its first rows', () => {
    expect(syncBadgeState({ ...base, state: 'syncing', version: null }, true).label).toBe(
      'Getting the household…',
    )
    expect(syncBadgeState({ ...base, state: 'syncing' }, true).label).toBe('Syncing')
    // Rows counted as a snapshot loads, first or again.
    const snapshot = { receivedRows: 14_000, loadedRows: 12_000 }
    expect(syncBadgeState({ ...base, state: 'syncing', version: null, snapshot }, true).label).toBe(
      'Getting the household: 12,000 rows loaded',
    )
    expect(syncBadgeState({ ...base, state: 'syncing', snapshot }, true).label).toBe(
      'Reloading the household: 12,000 rows loaded',
    )
  })

  it('gives the refusal that stopped sync above everything', () => {
    const error = { code: 'UNAUTHENTICATED', message: 'This key was revoked.' }
    expect(syncBadgeState({ ...base, error }, false)).toEqual({
      state: 'stopped',
      label: 'Sync stopped: This key was revoked.',
    })
  })
})
