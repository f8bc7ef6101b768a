import { spawn } from 'node:child_process'
import { readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { openStore, writeBackup } from '@hearth/engine/node'
import { afterAll, describe, expect, it } from 'vitest'
import { apiClient, tempDataDir } from '../src/index.ts'
import { startServerProcess } from './server-process.ts'

const ROOT = join(import.meta.dirname, '..', '..')
const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const TOKEN = 'backup-owner-token-0123456789abcdef'

/** Runs `npm run hearth -- …` as a separate process, as an operator would. */
function hearth(args: string[], dataDir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'server', 'src', 'cli.ts'), ...args],
      {
        cwd: ROOT,
        env: { ...process.env, HEARTH_DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
      },
    )
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }))
  })
}

interface Backup {
  versions: Record<string, number>
  /** Each table's rows, as the file holds them (every value as PostgreSQL's text), sorted. */
  tables: Map<string, { columns: string[]; rows: (string | null)[][] }>
}

function readBackup(path: string): Backup {
  const lines = readFileSync(path, 'utf8').trim().split('\n')
  const header = JSON.parse(lines[0]!)
  const tables: Backup['tables'] = new Map()
  let current: (string | null)[][] = []
  for (const line of lines.slice(1)) {
    const value = JSON.parse(line)
    if (Array.isArray(value)) current.push(value)
    else if (value.table) {
      current = []
      tables.set(value.table, { columns: value.columns, rows: current })
    }
  }
  for (const table of tables.values())
    table.rows.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1))
  return { versions: header.versions, tables }
}

/** Backs up a folder no server runs on, in this process. */
async function backUpFolder(dataDir: string, path: string): Promise<void> {
  const store = await openStore({ dataDir })
  try {
    await writeBackup(store, path)
  } finally {
    await store.close()
  }
}

const column = (backup: Backup, table: string, name: string) =>
  backup.tables.get(table)!.columns.indexOf(name)

describe('hearth backup of a running embedded server', () => {
  it('snapshots a consistent store during a write storm, and restore builds the same store', async () => {
    const dataDir = tempDataDir(dirs)
    const files = tempDataDir(dirs)
    const server = await startServerProcess(dataDir, TOKEN)
    const api = apiClient(server.url, TOKEN)
    let storming = true
    let acked = 0
    try {
      expect((await api.post('/households/current/tags', { name: 'before' })).status).toBe(201)
      const before = await hearth(['backup', '--out', join(files, 'before.jsonl')], dataDir)
      expect(before, before.stderr).toMatchObject({ code: 0 })

      const storm = Promise.all(
        Array.from({ length: 6 }, async (_, w) => {
          for (let i = 0; storming; i++) {
            const res = await api.post('/households/current/tags', { name: `w${w} #${i}` })
            expect(res.status).toBe(201)
            acked++
          }
        }),
      )
      let failed: unknown = null
      storm.catch((error) => (failed = error))
      const waitFor = async (count: number) => {
        while (acked < count && !failed) await new Promise((resolve) => setTimeout(resolve, 20))
        if (failed) throw failed
      }
      await waitFor(20)
      // The CLI finds the folder locked and runs the command inside the server, which keeps writing.
      const during = await hearth(['backup', '--out', join(files, 'during.jsonl')], dataDir)
      expect(during, during.stderr).toMatchObject({ code: 0 })
      expect(during.stdout).toMatch(/^Backed up \d+ rows of \d+ tables to /)
      const ackedAtBackup = acked
      await waitFor(ackedAtBackup + 20)
      storming = false
      await storm
    } finally {
      storming = false
      await server.stop()
    }
    await backUpFolder(dataDir, join(files, 'after.jsonl'))
    expect(statSync(join(files, 'during.jsonl')).mode & 0o777).toBe(0o600)

    // Restore into a new folder, then back that store up to compare it with the snapshot.
    const restoredDir = tempDataDir(dirs)
    const restored = await hearth(['restore', '--from', join(files, 'during.jsonl')], restoredDir)
    expect(restored, restored.stderr).toMatchObject({ code: 0 })
    await backUpFolder(restoredDir, join(files, 'restored.jsonl'))

    const [pre, snap, post, copy] = ['before', 'during', 'after', 'restored'].map((n) =>
      readBackup(join(files, `${n}.jsonl`)),
    ) as [Backup, Backup, Backup, Backup]
    // The restored store holds exactly the snapshot, every table and every value.
    expect([...copy.tables.keys()].sort()).toEqual([...snap.tables.keys()].sort())
    for (const [name, table] of snap.tables) expect(copy.tables.get(name), name).toEqual(table)

    // The snapshot is the source at one version: the change log up to it, nothing after.
    const [household, version] = Object.entries(snap.versions).find(
      ([h]) => pre.versions[h] !== post.versions[h],
    )!
    expect(version).toBeGreaterThan(pre.versions[household]!)
    expect(version).toBeLessThan(post.versions[household]!)
    const log = (b: Backup) => {
      const v = column(b, 'change_log', 'version')
      return b.tables.get('change_log')!.rows.filter((r) => Number(r[v]) <= version)
    }
    expect(log(snap)).toEqual(log(post))
    // The tags are exactly those the log holds up to that version.
    const tagIds = (b: Backup) =>
      b.tables
        .get('tags')!
        .rows.map((r) => r[column(b, 'tags', 'id')])
        .sort()
    const table = column(post, 'change_log', 'table_name')
    const rowId = column(post, 'change_log', 'row_id')
    const loggedTags = log(post)
      .filter((r) => r[table] === 'tags')
      .map((r) => r[rowId])
      .sort()
    expect(tagIds(snap)).toEqual([...new Set(loggedTags)])
    // Tables the storm never touched are the same in all three.
    for (const [name, rows] of pre.tables) {
      if (JSON.stringify(rows) === JSON.stringify(post.tables.get(name)))
        expect(snap.tables.get(name), name).toEqual(rows)
    }
  }, 600_000)

  it('refuses to restore into a store that holds data', async () => {
    const dataDir = tempDataDir(dirs)
    const files = tempDataDir(dirs)
    const server = await startServerProcess(dataDir, TOKEN)
    try {
      expect((await hearth(['backup', '--out', join(files, 'b.jsonl')], dataDir)).code).toBe(0)
      const again = await hearth(['restore', '--from', join(files, 'b.jsonl'), '--json'], dataDir)
      expect(again.code).toBe(1)
      expect(JSON.parse(again.stdout).error.code).toBe('BACKUP')
    } finally {
      await server.stop()
    }
  }, 120_000)
})
