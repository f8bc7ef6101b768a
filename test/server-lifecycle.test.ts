import { spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { DataDirLockedError, openStore } from '@hearth/engine/node'
import { loadConfig, runCli, startServer } from '@hearth/server'
import pino from 'pino'
import { afterAll, describe, expect, it } from 'vitest'
import { apiClient, tempDataDir as tempDir } from './src/index.ts'

const ROOT = join(import.meta.dirname, '..')
const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const tempDataDir = () => tempDir(dirs)

function config(dataDir: string, env: Record<string, string> = {}) {
  return { ...loadConfig({ HEARTH_DATA_DIR: dataDir, ...env }), port: 0 }
}

/** Runs a repository script as a child process, as a user at the shell would. */
function run(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }))
  })
}

const silent = pino({ level: 'silent' })

// Each test boots PGlite in a new folder (initdb and the migrations): seconds on a quiet machine,
// past the default 30 s on a loaded one.
describe('embedded store lifecycle', { timeout: 120_000 }, () => {
  it('creates an owner with HEARTH_INIT_OWNER_TOKEN on first start, and keeps data across a restart', async () => {
    const dataDir = tempDataDir()
    const token = 'test-owner-token-0123456789'
    const first = await startServer(config(dataDir, { HEARTH_INIT_OWNER_TOKEN: token }), { logger: silent })
    expect(first.bootstrap?.token).toBe(token)
    const api = apiClient(first.url, token)
    expect((await api.patch('/households/current', { name: 'Kept' })).status).toBe(200)
    await first.close()

    const second = await startServer(config(dataDir, { HEARTH_INIT_OWNER_TOKEN: token }), { logger: silent })
    try {
      expect(second.bootstrap).toBeNull()
      const res = await apiClient(second.url, token).get('/households/current')
      expect(res.status).toBe(200)
      expect(res.body.name).toBe('Kept')
      expect((await apiClient(second.url, token).get('/users/me/api-keys')).body.items).toHaveLength(1)
    } finally {
      await second.close()
    }
  })

  it('mints and prints a random key when no token is configured', async () => {
    const dataDir = tempDataDir()
    const server = await startServer(config(dataDir), { logger: silent })
    try {
      expect(server.bootstrap?.token).toMatch(/^hth_[A-Za-z0-9_-]{40,}$/)
      const me = await apiClient(server.url, server.bootstrap!.token).get('/households/current/members')
      expect(me.status).toBe(200)
      expect(me.body.items[0].role).toBe('owner')
    } finally {
      await server.close()
    }
  })

  it('refuses a second server on the same data folder with a clear message', async () => {
    const dataDir = tempDataDir()
    const first = await startServer(config(dataDir), { logger: silent })
    try {
      await expect(startServer(config(dataDir), { logger: silent })).rejects.toBeInstanceOf(
        DataDirLockedError,
      )
      const child = await run(['server/src/main.ts'], { HEARTH_DATA_DIR: dataDir, PORT: '0' })
      expect(child.code).toBe(1)
      expect(child.stderr).toContain(
        `The data folder ${dataDir} is in use by another Hearth process (pid ${process.pid})`,
      )
    } finally {
      await first.close()
    }
    // Once the first server stops, the folder is free again.
    const again = await startServer(config(dataDir), { logger: silent })
    await again.close()
  })
})

describe('CLI', { timeout: 120_000 }, () => {
  it('creates a user, a household, a member and keys, printing JSON when asked', async () => {
    const dataDir = tempDataDir()
    // The commands run in this process on one open store: a process per command would spend
    // seconds booting PGlite each time. The real entry point runs once, below.
    const store = await openStore({ dataDir })
    const cli = async (...args: string[]) => {
      let stdout = ''
      const code = await runCli([...args, '--json'], {
        env: { HEARTH_DATA_DIR: dataDir },
        stdout: (text) => {
          stdout += text
        },
        stderr: () => {},
        store,
      })
      return { code, json: JSON.parse(stdout) }
    }
    const owner = await cli('user', 'create', '--name', 'Ada', '--email', 'ada@example.com')
    expect(owner.code).toBe(0)
    const member = await cli('user', 'create', '--name', 'Bo')
    const household = await cli(
      'household',
      'create',
      '--owner',
      owner.json.id,
      '--name',
      'Home',
      '--currency',
      'EUR',
    )
    expect(household.json).toMatchObject({ name: 'Home', baseCurrency: 'EUR' })
    const added = await cli('member', 'add', '--household', household.json.id, '--user', member.json.id)
    expect(added.json).toMatchObject({ role: 'member' })
    const key = await cli(
      'key',
      'create',
      '--user',
      member.json.id,
      '--name',
      'bo',
      '--scopes',
      'read:households',
    )
    expect(key.json.key).toMatch(/^hth_/)
    const revoked = await cli('key', 'revoke', '--user', member.json.id, '--id', key.json.id)
    expect(revoked.json.revokedAt).not.toBeNull()
    const bad = await cli(
      'key',
      'create',
      '--user',
      member.json.id,
      '--name',
      'x',
      '--scopes',
      'read:nothing',
    )
    expect(bad.code).toBe(2)
    expect(bad.json.error.code).toBe('USAGE')
    // An owner who lost their only key gets a new one on the machine that holds the store.
    const recovered = await cli('owner', 'recover')
    expect(recovered.code).toBe(0)
    expect(recovered.json).toMatchObject({ userId: owner.json.id, householdId: household.json.id })
    expect(recovered.json.key).toMatch(/^hth_/)
    const listed = await cli('household', 'list')
    expect(listed.json.items).toEqual([
      { id: household.json.id, name: 'Home', ownerId: owner.json.id, ownerName: 'Ada' },
    ])
    await store.close()

    // `npm run hearth` as a user runs it: a process that opens the folder HEARTH_DATA_DIR names.
    const fresh = await run(
      [
        'server/src/cli.ts',
        'key',
        'create',
        '--user',
        member.json.id,
        '--name',
        'live',
        '--scopes',
        'read:households',
        '--json',
      ],
      { HEARTH_DATA_DIR: dataDir },
    )
    expect(fresh.code, fresh.stderr).toBe(0)
    // The server on the same folder accepts the key the CLI issued.
    const server = await startServer(config(dataDir), { logger: silent })
    try {
      const res = await apiClient(server.url, JSON.parse(fresh.stdout).key).get('/households/current/members')
      expect(res.status).toBe(200)
      expect(res.body.items.map((m: any) => m.name)).toEqual(['Ada', 'Bo'])
    } finally {
      await server.close()
    }
  })
})
