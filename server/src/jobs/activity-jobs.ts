import { DEFAULT_ACTIVITY_RETENTION_DAYS, trimActivity } from '@hearth/engine'
import type { Job } from './job.ts'

const MINUTE = 60_000

/**
 * Trims the household activity older than its retention (`HEARTH_ACTIVITY_RETENTION_DAYS`, two
 * years by default) every hour, 5,000 entries a transaction, until none is left or the server
 * stops (docs/api/activity.md#retention).
 */
export function activityTrimJob(days = DEFAULT_ACTIVITY_RETENTION_DAYS): Job {
  return {
    name: 'activity.trim',
    intervalMs: 60 * MINUTE,
    async run({ store, actor, signal }) {
      const batch = 5_000
      let trimmed = 0
      for (;;) {
        const n = await trimActivity(store.db, { now: actor.now, days, batch })
        trimmed += n
        if (n < batch || signal.aborted) break
      }
      return { days, trimmed }
    },
  }
}
