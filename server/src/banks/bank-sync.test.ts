import type { FetchedWindow } from '@hearth/engine'
import { describe, expect, it } from 'vitest'
import { secretBox } from '../webhooks/secret-box.ts'
import { type BankSyncSettings, fetchWindows, syncWindows } from './bank-sync.ts'
import type { BankProvider, FetchOutcome } from './provider.ts'

const DAY = 86_400
const now = new Date('2026-11-27T12:00:00Z')
const end = now.getTime() / 1000

describe('syncWindows', () => {
  it('reaches back the initial days on a first sync, in windows of at most 90 days, oldest first', () => {
    expect(syncWindows(null, now, { initialDays: 200, overlapDays: 10 }, 90)).toEqual([
      { start: end - 200 * DAY, end: end - 110 * DAY },
      { start: end - 110 * DAY, end: end - 20 * DAY },
      { start: end - 20 * DAY, end },
    ])
  })

  it('starts the overlap before where the last sync ended, and asks a day at least', () => {
    const last = new Date(now.getTime() - 3_600_000)
    expect(syncWindows(last, now, { initialDays: 90, overlapDays: 10 }, 90)).toEqual([
      { start: end - 3600 - 10 * DAY, end },
    ])
    expect(syncWindows(now, now, { initialDays: 90, overlapDays: 0 }, 90)).toEqual([
      { start: end - DAY, end },
    ])
  })
})

/** A provider whose window answers are scripted: each call takes the next outcome. */
function scripted(outcomes: FetchOutcome<null>[]): BankProvider & { calls: number } {
  const provider = {
    name: 'simplefin' as const,
    maxWindowDays: 90,
    calls: 0,
    connect: async () => ({ ok: false as const, refused: 'not here' }),
    listAccounts: async () => ({ ok: true as const, value: { accounts: [], errors: [] } }),
    async fetchWindow(_access: string, start: number, end: number): Promise<FetchOutcome<FetchedWindow>> {
      const next = outcomes[provider.calls++] ?? { ok: true, value: null }
      return next.ok ? { ok: true, value: { start, end, accounts: [], errors: [] } } : next
    },
  }
  return provider
}

function settings(provider: BankProvider, retryDelaysMs: number[]): BankSyncSettings {
  return {
    provider,
    box: secretBox(undefined),
    initialDays: 200,
    overlapDays: 10,
    retryDelaysMs,
    minGapMs: 0,
    intervalMs: 3_600_000,
  }
}

const unavailable = { ok: false as const, kind: 'unavailable' as const, message: 'HTTP 503' }

describe('fetchWindows', () => {
  it('asks a window again after each wait while the provider is unavailable, then goes on', async () => {
    const provider = scripted([unavailable, unavailable])
    const got = await fetchWindows('access', null, now, settings(provider, [1, 1]))
    expect(got.failure).toBeNull()
    expect(got.windows).toHaveLength(3)
    expect(provider.calls).toBe(5)
  })

  it('stops at a window that keeps failing: the windows before it are whole, none after is asked', async () => {
    const provider = scripted([{ ok: true, value: null }, unavailable, unavailable])
    const got = await fetchWindows('access', null, now, settings(provider, [1]))
    expect(got).toEqual({
      windows: [{ start: end - 200 * DAY, end: end - 110 * DAY, accounts: [], errors: [] }],
      failure: { kind: 'unavailable', message: 'HTTP 503' },
    })
    expect(provider.calls).toBe(3)
  })

  it('never retries an access the provider refused', async () => {
    const refused = { ok: false as const, kind: 'accessRefused' as const, message: 'revoked' }
    const provider = scripted([refused])
    const got = await fetchWindows('access', null, now, settings(provider, [1, 1, 1]))
    expect(got).toEqual({ windows: [], failure: { kind: 'accessRefused', message: 'revoked' } })
    expect(provider.calls).toBe(1)
  })
})
