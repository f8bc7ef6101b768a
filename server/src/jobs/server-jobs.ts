import { generateAllInsights, maintainStore, purgeIdempotencyKeys, type Store } from '@hearth/engine'
import { trimChangeLog, trimRejections } from '@hearth/engine/sync'
import type { BankSyncSettings } from '../banks/bank-sync.ts'
import { activityTrimJob } from './activity-jobs.ts'
import { type BackupSchedule, backupJob } from './backup-job.ts'
import { bankSyncJob } from './bank-jobs.ts'
import type { Job } from './job.ts'
import { recurrenceJobs } from './recurrence-jobs.ts'

const MINUTE = 60_000
const DAY = 86_400_000

/** Options for the server's periodic work. */
export interface ServerJobsOptions {
  /** Days of change log kept for devices to catch up from (`HEARTH_SYNC_LOG_WINDOW_DAYS`); 30. */
  logWindowDays?: number
  /** Days of household activity kept (`HEARTH_ACTIVITY_RETENTION_DAYS`); 730. */
  activityRetentionDays?: number
  /** Scheduled backups (`HEARTH_BACKUP_DIR`); none when absent. */
  backups?: BackupSchedule
  /** Bank connections to sync; none when absent. */
  banks?: BankSyncSettings
}

/**
 * The periodic work every server does: trimming the sync change log past its window, purging
 * idempotency keys past their 24 hours and, on the embedded store, which has no autovacuum,
 * vacuuming and analyzing it.
 */
export function serverJobs(store: Store, options: ServerJobsOptions = {}): Job[] {
  const windowDays = options.logWindowDays ?? 30
  const jobs: Job[] = [
    {
      name: 'changeLog.trim',
      intervalMs: 60 * MINUTE,
      async run({ store, actor }) {
        const before = new Date(actor.now.getTime() - windowDays * DAY)
        const rows = await trimChangeLog(store.db, before)
        const rejections = await trimRejections(store.db, before)
        return { before: before.toISOString(), rows, rejections }
      },
    },
    {
      name: 'insights.generate',
      intervalMs: 360 * MINUTE,
      async run({ store, actor, signal }) {
        return { created: await generateAllInsights(store.db, actor.now, signal) }
      },
    },
    {
      name: 'idempotencyKeys.purge',
      intervalMs: 10 * MINUTE,
      async run({ store }) {
        return { purged: await purgeIdempotencyKeys(store.db) }
      },
    },
    ...recurrenceJobs(),
    activityTrimJob(options.activityRetentionDays),
  ]
  if (options.backups) jobs.push(backupJob(options.backups))
  if (options.banks) jobs.push(bankSyncJob(options.banks))
  if (store.kind === 'pglite') {
    jobs.push({
      name: 'store.maintain',
      intervalMs: 10 * MINUTE,
      async run({ store }) {
        return { vacuumed: await maintainStore(store) }
      },
    })
  }
  return jobs
}
