import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { migrateToLatest, newUlid, openPGliteStore, operations, runMutation, SCOPES } from '@hearth/engine'
import { BackupError, restoreBackup, writeBackup } from '@hearth/engine/node'
import { sharedStore, tempDataDir } from '@hearth/test/store'
import { afterAll, describe, expect, it } from 'vitest'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** A backup file's table lines (its header aside), which hold every row as PostgreSQL's text. */
const body = (path: string) => readFileSync(path, 'utf8').trim().split('\n').slice(1)

describe('backup and restore', () => {
  it('restores every table of this store into a new embedded store, value for value', async () => {
    const store = await sharedStore()
    const id = newUlid()
    await runMutation(
      store.db,
      operations.users.create,
      { id, name: 'Backed up' },
      { userId: id, scopes: [...SCOPES], now: new Date() },
    )
    const files = tempDataDir(dirs)
    const header = await writeBackup(store, join(files, 'source.jsonl'))
    expect(header.tables.map((t) => t.name)).toContain('tags')
    const target = await openPGliteStore({ dataDir: join(files, 'restored') })
    try {
      await migrateToLatest(target.db)
      await restoreBackup(target, join(files, 'source.jsonl'))
      await writeBackup(target, join(files, 'copy.jsonl'))
      const sorted = (lines: string[]) => [...lines].sort()
      expect(sorted(body(join(files, 'copy.jsonl')))).toEqual(sorted(body(join(files, 'source.jsonl'))))
      // Restoring twice is refused: the store holds data now.
      await expect(restoreBackup(target, join(files, 'source.jsonl'))).rejects.toThrow(BackupError)
    } finally {
      await target.close()
    }
  }, 120_000)

  it('refuses a file that is cut short', async () => {
    const store = await sharedStore()
    const files = tempDataDir(dirs)
    await writeBackup(store, join(files, 'whole.jsonl'))
    const lines = readFileSync(join(files, 'whole.jsonl'), 'utf8').trim().split('\n')
    writeFileSync(join(files, 'cut.jsonl'), `${lines.slice(0, -1).join('\n')}\n`)
    const target = await openPGliteStore({ dataDir: 'memory://' })
    try {
      await migrateToLatest(target.db)
      await expect(restoreBackup(target, join(files, 'cut.jsonl'))).rejects.toThrow('ends early')
      expect(await target.db.selectFrom('users').select('id').execute()).toEqual([])
    } finally {
      await target.close()
    }
  }, 120_000)
})
