import { readFile, stat } from 'node:fs/promises'
import { extname, join, normalize, sep } from 'node:path'
import { Hono } from 'hono'
import type { AppEnv } from '../http/env.ts'
import { appPageSecurity } from '../http/page-security.ts'
import { problem } from '../http/problem.ts'

/** Where `npm run build -w @hearth/web` writes the household app (`HEARTH_WEB_DIR` overrides it). */
export const WEB_APP_DIR = join(import.meta.dirname, '../../../packages/web/dist')

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.wasm': 'application/wasm',
  '.data': 'application/octet-stream',
  '.tgz': 'application/gzip',
  '.txt': 'text/plain; charset=utf-8',
}

/**
 * The household web app at /app: its built files with their content types, `index.html` for any
 * other path below /app (the app routes in the browser), and the service worker at /app/sw.js, whose
 * scope is /app/. Hashed assets are cached for a year; the page and the worker are revalidated each
 * time, so a new build reaches browsers on their next visit.
 */
export function webAppRoutes(dir = process.env.HEARTH_WEB_DIR ?? WEB_APP_DIR) {
  const app = new Hono<AppEnv>()
  const root = normalize(dir)
  const send = async (path: string) => {
    const body = await readFile(path)
    const name = path.slice(root.length)
    const immutable = name.startsWith(`${sep}assets${sep}`)
    return new Response(body, {
      headers: {
        'content-type': TYPES[extname(path)] ?? 'application/octet-stream',
        'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
        'x-content-type-options': 'nosniff',
        ...(name === `${sep}sw.js` && { 'service-worker-allowed': '/app/' }),
      },
    })
  }
  app.use('/app', appPageSecurity())
  app.use('/app/*', appPageSecurity())
  app.get('/app', (c) => c.redirect('/app/', 308))
  app.get('/app/*', async (c) => {
    const index = join(root, 'index.html')
    if (!(await isFile(index))) {
      return problem(c, 503, 'WEB_APP_NOT_BUILT', {
        detail: 'The web app is not built: run `npm run build -w @hearth/web` (npm install does it).',
      })
    }
    const relative = decodeURIComponent(c.req.path.slice('/app'.length)) || '/'
    const file = normalize(join(root, relative))
    if (file.startsWith(root + sep) && (await isFile(file))) return send(file)
    // A file that is not there (an old asset) is a 404; any other path is a screen of the app.
    if (extname(relative) !== '') {
      return problem(c, 404, 'ROUTE_NOT_FOUND', { detail: `No file ${c.req.path} in the web app.` })
    }
    return send(index)
  })
  return app
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isFile() ?? false
}
