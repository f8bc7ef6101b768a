/**
 * The JavaScript of the app's first paint stays small: the entry chunk index.html loads, the
 * chunks it preloads and every chunk those import statically, gzipped, under 300 kB (issue 41;
 * the SDK, the engine, PGlite and each screen but the budget are chunks fetched after it). And
 * the service worker precaches every file of the build the app may fetch, so it opens offline.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { ensureWebBuild } from './web-build.ts'

const DIST = join(import.meta.dirname, '..', '..', 'packages/web/dist')
const LIMIT = 300 * 1024

/** The chunks index.html loads or preloads, and every chunk they import statically, by path under dist. */
function firstPaintChunks(): string[] {
  const html = readFileSync(join(DIST, 'index.html'), 'utf8')
  const start = [...html.matchAll(/<(?:script|link)[^>]+(?:src|href)="\/app\/([^"]+\.js)"/g)].map(
    (m) => m[1]!,
  )
  const seen = new Set<string>()
  const queue = [...start]
  while (queue.length > 0) {
    const file = queue.pop()!
    if (seen.has(file)) continue
    seen.add(file)
    const source = readFileSync(join(DIST, file), 'utf8')
    const dir = file.slice(0, file.lastIndexOf('/') + 1)
    // Static imports only: `import … from "./x.js"` and `import "./x.js"` (a dynamic `import(…)` is later).
    for (const m of source.matchAll(/\bimport\s*(?:[^"'`()]*?\bfrom\s*)?["']\.\/([^"']+\.js)["']/g)) {
      queue.push(`${dir}${m[1]}`)
    }
  }
  return [...seen]
}

describe('the app bundle', () => {
  it('loads under 300 kB of gzipped JavaScript for its first paint', { timeout: 180_000 }, () => {
    ensureWebBuild()
    const chunks = firstPaintChunks()
    expect(chunks.length).toBeGreaterThan(0)
    const sizes = chunks.map((file) => ({ file, gzip: gzipSync(readFileSync(join(DIST, file))).length }))
    const total = sizes.reduce((sum, s) => sum + s.gzip, 0)
    expect(total, JSON.stringify(sizes)).toBeLessThan(LIMIT)
    // The split is real: the replica's code (PGlite among it) is not among the first paint's.
    const all = readdirSync(join(DIST, 'assets')).filter((f) => f.endsWith('.js'))
    const allBytes = all.reduce((sum, f) => sum + gzipSync(readFileSync(join(DIST, 'assets', f))).length, 0)
    expect(allBytes).toBeGreaterThan(total * 2)
  })

  it('precaches every file the app may fetch, for an offline start', { timeout: 180_000 }, () => {
    ensureWebBuild()
    const sw = readFileSync(join(DIST, 'sw.js'), 'utf8')
    const precached = new Set([...sw.matchAll(/url:"([^"]+)"/g)].map((m) => m[1]))
    const assets = readdirSync(join(DIST, 'assets')).filter((f) => /\.(js|css|wasm|data)$/.test(f))
    expect(assets.length).toBeGreaterThan(10)
    for (const file of assets) expect(precached, file).toContain(`assets/${file}`)
    expect(precached).toContain('index.html')
  })
})
