import { execFile } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'

const root = join(import.meta.dirname, '../..')
const dist = join(root, 'packages/web/dist')
const server = useTestServer()

beforeAll(async () => {
  // npm install builds the app (the root `prepare` script); build it here when it is missing.
  if (!existsSync(join(dist, 'index.html'))) {
    await promisify(execFile)('npm', ['run', 'build', '-w', '@hearth/web'], {
      cwd: root,
      maxBuffer: 1 << 24,
      env: { ...process.env, NODE_ENV: 'production' },
    })
  }
}, 300_000)

describe('the web app at /app', () => {
  it('serves the built files with their content types, without a key', async () => {
    const assets = readdirSync(join(dist, 'assets'))
    const wasm = assets.find((f) => f.endsWith('.wasm') && f.startsWith('pglite'))!
    const data = assets.find((f) => f.endsWith('.data'))!
    const script = assets.find((f) => /^index-.*\.js$/.test(f))!
    const cases: [string, string][] = [
      ['/app/', 'text/html; charset=utf-8'],
      [`/app/assets/${wasm}`, 'application/wasm'],
      [`/app/assets/${data}`, 'application/octet-stream'],
      [`/app/assets/${script}`, 'text/javascript; charset=utf-8'],
      ['/app/manifest.webmanifest', 'application/manifest+json'],
      ['/app/sw.js', 'text/javascript; charset=utf-8'],
    ]
    for (const [path, type] of cases) {
      const res = await fetch(`${server.url}${path}`)
      expect([path, res.status, res.headers.get('content-type')]).toEqual([path, 200, type])
    }
    const asset = await fetch(`${server.url}/app/assets/${script}`)
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    const worker = await fetch(`${server.url}/app/sw.js`)
    expect(worker.headers.get('cache-control')).toBe('no-cache')
    expect(worker.headers.get('service-worker-allowed')).toBe('/app/')
  })

  it('answers the page for any screen below /app, a 404 for a missing file, and redirects /app', async () => {
    const page = await fetch(`${server.url}/app/budget/2026-11`)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('<div id="root">')
    const missing = await fetch(`${server.url}/app/assets/nope-123.js`)
    expect(missing.status).toBe(404)
    expect((await missing.json()).code).toBe('ROUTE_NOT_FOUND')
    // A path that climbs out of the build is never read.
    const outside = await fetch(`${server.url}/app/%2e%2e/%2e%2e/package.json`)
    expect(outside.status).toBe(404)
    const redirect = await fetch(`${server.url}/app`, { redirect: 'manual' })
    expect([redirect.status, redirect.headers.get('location')]).toEqual([308, '/app/'])
  })
})
