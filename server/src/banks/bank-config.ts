import { BANK_SYNC_DEFAULTS } from './bank-sync.ts'

/** How bank connections sync, from the environment (README, Configuration). */
export interface BankConfig {
  /** How often the job syncs each active connection (`HEARTH_BANK_SYNC_INTERVAL_MINUTES`, 360). */
  intervalMs: number
  /** The least time between two syncs of one connection (`HEARTH_BANK_SYNC_MIN_GAP_MINUTES`, 15). */
  minGapMs: number
  /** How far back a first sync reaches (`HEARTH_BANK_SYNC_INITIAL_DAYS`, 90). */
  initialDays: number
  /** Waits before retrying a window the provider failed; not read from the environment. */
  retryDelaysMs?: readonly number[]
  /** How long one provider request may take; not read from the environment. */
  timeoutMs?: number
}

function minutes(
  env: Record<string, string | undefined>,
  name: string,
  fallback: number,
  least: number,
): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < least || n > 100_000)
    throw new Error(`${name} must be a whole number from ${least} to 100000, got "${raw}".`)
  return n
}

export function bankConfigFromEnv(env: Record<string, string | undefined>): BankConfig {
  return {
    // The bridge expects 24 requests a day or fewer per access: an hour is the least interval.
    intervalMs:
      minutes(env, 'HEARTH_BANK_SYNC_INTERVAL_MINUTES', BANK_SYNC_DEFAULTS.intervalMs / 60_000, 60) * 60_000,
    minGapMs:
      minutes(env, 'HEARTH_BANK_SYNC_MIN_GAP_MINUTES', BANK_SYNC_DEFAULTS.minGapMs / 60_000, 1) * 60_000,
    initialDays: minutes(env, 'HEARTH_BANK_SYNC_INITIAL_DAYS', BANK_SYNC_DEFAULTS.initialDays, 1),
  }
}
