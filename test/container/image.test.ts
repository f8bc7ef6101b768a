import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/**
 * The Dockerfile and compose.yaml, built and started by a real container engine. Slow (an image
 * build runs `npm ci`), so it runs only when asked: `HEARTH_CONTAINER_TEST=1 npx vitest run
 * test/container` (test/container/README.md). `HEARTH_CONTAINER_ENGINE` is `podman` (default) or
 * `docker`; the compose command is `podman-compose` or `docker compose`.
 */
const enabled = process.env.HEARTH_CONTAINER_TEST === '1'
const engine = process.env.HEARTH_CONTAINER_ENGINE ?? 'podman'
const compose = engine === 'docker' ? ['docker', 'compose'] : ['podman-compose']
const root = join(import.meta.dirname, '..', '..')
const run = promisify(execFile)
const tag = `localhost/hearth:container-test-${process.pid}`
const names: string[] = []

async function sh(cmd: string, args: string[], env: Record<string, string> = {}) {
  const { stdout, stderr } = await run(cmd, args, {
    cwd: root,
    env: { ...process.env, ...env },
    maxBuffer: 64 * 1024 * 1024,
  })
  return { stdout: stdout.trim(), stderr: stderr.trim() }
}
const ce = (...args: string[]) => sh(engine, args)

/** Polls `url` until it answers 200, for up to `ms`. */
async function healthy(url: string, ms = 240_000): Promise<any> {
  const until = Date.now() + ms
  for (;;) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(3000) })
      if (res.ok) return await res.json()
    } catch {}
    if (Date.now() > until) throw new Error(`${url} did not answer 200 within ${ms} ms`)
    await new Promise((r) => setTimeout(r, 1000))
  }
}

/** The first start prints the owner's key once. */
const keyIn = (logs: string) => logs.match(/hth_[A-Za-z0-9_-]+/)?.[0]

/** A free port on the loopback. */
async function freePort(): Promise<number> {
  const { createServer } = await import('node:net')
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })
}

describe.skipIf(!enabled)('the container image', () => {
  beforeAll(async () => {
    // Docker format, so the image keeps its HEALTHCHECK (the OCI format has none).
    await ce('build', ...(engine === 'podman' ? ['--format', 'docker'] : []), '-t', tag, '.')
  }, 1_200_000)
  afterAll(async () => {
    for (const name of names) await ce('rm', '-f', name).catch(() => {})
    await ce('volume', 'rm', '-f', `hearth-test-data-${process.pid}`).catch(() => {})
    await ce('rmi', '-f', tag).catch(() => {})
  }, 120_000)

  it('runs unprivileged, is healthy, keeps its data in the volume and stops cleanly on SIGTERM', async () => {
    const volume = `hearth-test-data-${process.pid}`
    const port = await freePort()
    const start = async (name: string, env: string[] = []) => {
      names.push(name)
      await ce(
        'run',
        '-d',
        '--name',
        name,
        '-p',
        `127.0.0.1:${port}:8787`,
        '-v',
        `${volume}:/data`,
        ...env,
        tag,
      )
      return healthy(`http://127.0.0.1:${port}/healthz`)
    }
    const first = `hearth-test-a-${process.pid}`
    expect(
      await start(first, ['-e', 'HEARTH_INIT_CURRENCY=EUR', '-e', 'HEARTH_INIT_TIMEZONE=Europe/Berlin']),
    ).toEqual({ status: 'ok', store: 'pglite' })
    expect((await ce('exec', first, 'id', '-u')).stdout).toBe('1000')
    const config = JSON.parse((await ce('inspect', tag)).stdout)[0]
    expect(config.Config.Volumes).toHaveProperty('/data')
    expect(config.Config.User).toBe('node')
    // Docker keeps it in Config, podman beside it.
    expect((config.Config.Healthcheck ?? config.Healthcheck).Test.join(' ')).toContain('/healthz')
    // The image's own HEALTHCHECK command, run now rather than at its 30 s interval.
    if (engine === 'podman') expect((await ce('healthcheck', 'run', first)).stdout).toBe('')
    else
      await expect
        .poll(async () => (await ce('inspect', '-f', '{{.State.Health.Status}}', first)).stdout, {
          timeout: 120_000,
        })
        .toBe('healthy')

    const logs = await ce('logs', first)
    const key = keyIn(logs.stdout + logs.stderr)
    expect(key).toBeDefined()
    expect(logs.stdout).toContain('Household currency: EUR (from HEARTH_INIT_CURRENCY)')
    const api = `http://127.0.0.1:${port}/households/current`
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
    const made = await fetch(`${api}/tags`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'Shared' }),
    })
    expect(made.status).toBe(201)

    // `stop` sends SIGTERM to PID 1, the server itself, and waits up to 30 s before SIGKILL.
    const stopping = Date.now()
    await ce('stop', '-t', '30', first)
    expect(Date.now() - stopping).toBeLessThan(25_000)
    expect((await ce('inspect', '-f', '{{.State.ExitCode}}', first)).stdout).toBe('0')
    const stopped = await ce('logs', first)
    expect(stopped.stdout + stopped.stderr).toMatch(
      /"signal":"SIGTERM".*"msg":"shutting down"[\s\S]*"msg":"stopped"/,
    )

    // A new container on the same volume has the household and no new key.
    const second = `hearth-test-b-${process.pid}`
    await start(second)
    const tags = await fetch(`${api}/tags`, { headers: auth })
    expect(tags.status).toBe(200)
    expect(JSON.stringify(await tags.json())).toContain('"name":"Shared"')
    expect(keyIn((await ce('logs', second)).stdout)).toBeUndefined()
    await ce('stop', '-t', '30', second)
    expect((await ce('inspect', '-f', '{{.State.ExitCode}}', second)).stdout).toBe('0')
  }, 600_000)

  it('compose.yaml starts Hearth on PostgreSQL, and stops it cleanly', async () => {
    const project = `hearthtest${process.pid}`
    const port = await freePort()
    const env = { HEARTH_PORT: String(port), HEARTH_INIT_CURRENCY: 'CHF' }
    const c = (...args: string[]) => sh(compose[0]!, [...compose.slice(1), '-p', project, ...args], env)
    try {
      await c('up', '-d')
      expect(await healthy(`http://127.0.0.1:${port}/healthz`)).toEqual({ status: 'ok', store: 'postgres' })
      const logs = await c('logs', 'hearth')
      const key = keyIn(logs.stdout + logs.stderr)
      expect(key).toBeDefined()
      const household = await fetch(`http://127.0.0.1:${port}/households/current`, {
        headers: { authorization: `Bearer ${key}` },
      })
      expect(household.status).toBe(200)
      expect((await household.json()).baseCurrency).toBe('CHF')
      await c('stop', '-t', '30', 'hearth')
      const { stdout: id } = await ce(
        'ps',
        '-a',
        '-q',
        '--filter',
        `label=com.docker.compose.project=${project}`,
        '--filter',
        'label=com.docker.compose.service=hearth',
      )
      expect((await ce('inspect', '-f', '{{.State.ExitCode}}', id.split('\n')[0]!)).stdout).toBe('0')
    } finally {
      await c('down', '-v').catch(() => {})
    }
  }, 1_200_000)
})
