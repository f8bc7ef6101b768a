import { spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { openStore } from '@hearth/engine/node'
import { afterAll, describe, expect, it } from 'vitest'
import { tempDataDir as tempDir } from './src/index.ts'

const ROOT = join(import.meta.dirname, '..')
const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** Runs `npm start` as a process manager would, and resolves once it listens, with its URL. */
function npmStart(dataDir: string, env: Record<string, string> = {}) {
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    env: { ...process.env, HEARTH_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  )
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      output += d
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1]
      if (url) resolve(url)
    })
    child.stderr.on('data', (d) => (output += d))
    exited.then(() => reject(new Error(`npm start exited before listening:\n${output}`)))
  })
  return { child, listening, exited, output: () => output }
}

describe('npm start as a service', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`stops gracefully on ${signal} sent to the pid npm start created, releasing the data folder`, async () => {
      const dataDir = tempDir(dirs)
      const { child, listening, exited } = npmStart(dataDir)
      const url = await listening
      expect((await fetch(`${url}/healthz`)).status).toBe(200)
      child.kill(signal)
      const { code } = await exited
      expect(code).toBe(0)
      await expect(fetch(`${url}/healthz`)).rejects.toThrow()
      // The folder is free: nothing orphaned still holds it.
      const store = await openStore({ dataDir })
      await store.close()
    }, 120_000)
  }
})

describe('first start', () => {
  it('settles the household from HEARTH_INIT_CURRENCY and HEARTH_INIT_TIMEZONE, and says so beside the key', async () => {
    const dataDir = tempDir(dirs)
    const { child, listening, exited, output } = npmStart(dataDir, {
      HEARTH_INIT_CURRENCY: 'EUR',
      HEARTH_INIT_TIMEZONE: 'Europe/Lisbon',
    })
    const url = await listening
    try {
      expect(output()).toContain(
        'Household currency: EUR (from HEARTH_INIT_CURRENCY); time zone: Europe/Lisbon (from HEARTH_INIT_TIMEZONE).',
      )
      const key = /shown once, keep it safe\):\s+(\S+)/.exec(output())![1]!
      const res = await fetch(`${url}/households/current`, { headers: { authorization: `Bearer ${key}` } })
      expect(await res.json()).toMatchObject({ baseCurrency: 'EUR', timeZone: 'Europe/Lisbon' })
    } finally {
      child.kill('SIGTERM')
      await exited
    }
  }, 120_000)
})
