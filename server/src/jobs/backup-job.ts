import { mkdirSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { writeBackup } from '@hearth/engine/node'
import type { Job } from './job.ts'

/** Where and how often scheduled backups go (`HEARTH_BACKUP_DIR` and friends). */
export interface BackupSchedule {
  dir: string
  intervalHours: number
  keep: number
}

const PREFIX = 'hearth-backup-'
const SUFFIX = '.jsonl'

/**
 * The scheduled backup: a `hearth backup` into `dir` every `intervalHours`, named by its UTC time
 * so that names sort by age, then every backup but the newest `keep` is deleted. Files in the
 * folder that are not its backups are left alone.
 */
export function backupJob(schedule: BackupSchedule): Job {
  return {
    name: 'store.backup',
    intervalMs: schedule.intervalHours * 3_600_000,
    async run({ store, actor }) {
      mkdirSync(schedule.dir, { recursive: true })
      const stamp = actor.now
        .toISOString()
        .replaceAll(/[-:]/g, '')
        .replace(/\.\d+Z$/, 'Z')
      const path = join(schedule.dir, `${PREFIX}${stamp}${SUFFIX}`)
      const header = await writeBackup(store, path)
      const backups = readdirSync(schedule.dir)
        .filter((name) => name.startsWith(PREFIX) && name.endsWith(SUFFIX))
        .sort()
      const removed = backups.slice(0, Math.max(0, backups.length - schedule.keep))
      for (const name of removed) rmSync(join(schedule.dir, name), { force: true })
      return { path, tables: header.tables.length, removed: removed.length }
    },
  }
}
