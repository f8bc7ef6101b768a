import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SCOPES } from '@hearth/engine'
import { sharedStore } from '@hearth/test'
import pino from 'pino'
import { afterAll, describe, expect, it } from 'vitest'
import { backupJob } from './backup-job.ts'
import { serverJobs } from './server-jobs.ts'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

describe('the scheduled backup job', () => {
  it('is off unless a folder is configured', async () => {
    const store = await sharedStore()
    expect(serverJobs(store).map((j) => j.name)).not.toContain('store.backup')
    const dir = mkdtempSync(join(tmpdir(), 'hearth-backups-'))
    dirs.push(dir)
    const jobs = serverJobs(store, { backups: { dir, intervalHours: 24, keep: 2 } })
    expect(jobs.find((j) => j.name === 'store.backup')?.intervalMs).toBe(24 * 3_600_000)
  })

  it('writes a backup per run and keeps only the newest N, leaving other files alone', async () => {
    const store = await sharedStore()
    const dir = mkdtempSync(join(tmpdir(), 'hearth-backups-'))
    dirs.push(dir)
    writeFileSync(join(dir, 'notes.txt'), 'mine')
    const job = backupJob({ dir, intervalHours: 1, keep: 2 })
    const logger = pino({ level: 'silent' })
    for (const minute of [1, 2, 3]) {
      const now = new Date(Date.UTC(2026, 10, 25, 3, minute))
      await job.run({
        store,
        logger,
        signal: new AbortController().signal,
        actor: { actor: 'system', scopes: [...SCOPES], now },
      })
    }
    expect(readdirSync(dir).sort()).toEqual([
      'hearth-backup-20261125T030200Z.jsonl',
      'hearth-backup-20261125T030300Z.jsonl',
      'notes.txt',
    ])
  }, 60_000)
})
