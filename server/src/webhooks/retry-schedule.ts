/**
 * The wait before each retry after a failed attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h,
 * 20 h and 24 h, ten attempts over about 3.2 days, each wait jittered by up to ±20%.
 */
export const RETRY_SCHEDULE_MS: readonly number[] = [
  5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000,
]

/** A `Retry-After` is honoured up to a day; beyond that the schedule's own wait applies. */
const MAX_RETRY_AFTER_MS = 86_400_000

/** What to do after an attempt. */
export type NextStep =
  | { kind: 'succeeded' }
  | { kind: 'retry'; delayMs: number }
  | { kind: 'give-up'; reason: string; disable: true }

/**
 * Decides after attempt number `attempt` (1 for the first): a 2xx succeeds, a 410 disables the
 * subscription at once, anything else (an error is status null) retries on the schedule (or after
 * a 429's or 503's `Retry-After`) until the schedule runs out, which disables it too.
 */
export function nextStep(
  attempt: number,
  status: number | null,
  retryAfter: string | null,
  schedule: readonly number[] = RETRY_SCHEDULE_MS,
  options: { random?: () => number; now?: number } = {},
): NextStep {
  if (status !== null && status >= 200 && status < 300) return { kind: 'succeeded' }
  if (status === 410) {
    return { kind: 'give-up', disable: true, reason: 'The receiver answered 410 Gone.' }
  }
  if (attempt > schedule.length) {
    return {
      kind: 'give-up',
      disable: true,
      reason: `Every one of ${attempt} attempts failed; the last ${status === null ? 'got no answer' : `answered ${status}`}.`,
    }
  }
  const asked = status === 429 || status === 503 ? retryAfterMs(retryAfter, options.now ?? Date.now()) : null
  if (asked !== null) return { kind: 'retry', delayMs: Math.min(asked, MAX_RETRY_AFTER_MS) }
  const base = schedule[attempt - 1]!
  const random = options.random ?? Math.random
  return { kind: 'retry', delayMs: Math.round(base * (0.8 + random() * 0.4)) }
}

/** A `Retry-After` in seconds or as an HTTP date, in ms from now; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | null {
  if (value === null || value.trim() === '') return null
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000
  const at = Date.parse(value)
  return Number.isNaN(at) ? null : Math.max(0, at - now)
}
