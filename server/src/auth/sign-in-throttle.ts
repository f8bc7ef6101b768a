import { FailureBackoff } from './failure-backoff.ts'

/**
 * Wrong passwords per account: 10 in a minute start a block of a minute, doubling at each strike
 * up to an hour. Like every limit on sign-in it only counts failures after the password was
 * checked, so the right password is accepted even while its account is being guessed at.
 */
export function accountBackoff(clock: () => number = Date.now): FailureBackoff {
  return new FailureBackoff({ limit: 10, windowMs: 60_000, maxBlockMs: 3_600_000 }, clock)
}
