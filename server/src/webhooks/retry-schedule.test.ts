import { describe, expect, it } from 'vitest'
import { nextStep, RETRY_SCHEDULE_MS, retryAfterMs } from './retry-schedule.ts'

describe('the webhook retry schedule', () => {
  it('spans about three days over ten attempts', () => {
    const total = RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0)
    expect(total / 86_400_000).toBeGreaterThan(3)
    expect(total / 86_400_000).toBeLessThan(3.5)
    expect(RETRY_SCHEDULE_MS).toHaveLength(9)
  })

  it('succeeds on any 2xx only', () => {
    expect(nextStep(1, 200, null)).toEqual({ kind: 'succeeded' })
    expect(nextStep(1, 299, null)).toEqual({ kind: 'succeeded' })
    expect(nextStep(1, 301, null, RETRY_SCHEDULE_MS, { random: () => 0.5 }).kind).toBe('retry')
    expect(nextStep(1, null, null, RETRY_SCHEDULE_MS, { random: () => 0.5 }).kind).toBe('retry')
  })

  it('backs off on the schedule with ±20% jitter', () => {
    expect(nextStep(1, 500, null, RETRY_SCHEDULE_MS, { random: () => 0 })).toEqual({
      kind: 'retry',
      delayMs: 4000,
    })
    expect(nextStep(1, 500, null, RETRY_SCHEDULE_MS, { random: () => 1 })).toEqual({
      kind: 'retry',
      delayMs: 6000,
    })
    expect(nextStep(9, 500, null, RETRY_SCHEDULE_MS, { random: () => 0.5 })).toEqual({
      kind: 'retry',
      delayMs: 86_400_000,
    })
  })

  it('gives up after the last attempt, and at once on 410 Gone', () => {
    expect(nextStep(10, 500, null)).toMatchObject({ kind: 'give-up', disable: true })
    expect(nextStep(1, 410, null)).toMatchObject({ kind: 'give-up', reason: expect.stringContaining('410') })
  })

  it('honours Retry-After on 429 and 503 only, in seconds or as a date, up to a day', () => {
    const now = Date.parse('2026-01-01T00:00:00Z')
    expect(nextStep(1, 429, '30', RETRY_SCHEDULE_MS, { now })).toEqual({ kind: 'retry', delayMs: 30_000 })
    expect(nextStep(1, 503, 'Thu, 01 Jan 2026 00:02:00 GMT', RETRY_SCHEDULE_MS, { now })).toEqual({
      kind: 'retry',
      delayMs: 120_000,
    })
    expect(nextStep(1, 429, '999999', RETRY_SCHEDULE_MS, { now })).toEqual({
      kind: 'retry',
      delayMs: 86_400_000,
    })
    expect(nextStep(1, 500, '30', RETRY_SCHEDULE_MS, { now, random: () => 0.5 })).toEqual({
      kind: 'retry',
      delayMs: 5000,
    })
    expect(retryAfterMs('soon', now)).toBeNull()
  })
})
