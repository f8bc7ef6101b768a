import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(import.meta.dirname, '..', '..')

/**
 * Builds the web app when its bundle is missing or older than its sources. The server serves
 * packages/web/dist at /app; `npm install` builds it (the root `prepare` script), and a test
 * never looks at a stale screen.
 */
export function ensureWebBuild(): void {
  const built = join(ROOT, 'packages/web/dist/index.html')
  if (existsSync(built) && !newer(join(ROOT, 'packages/web/src'), built)) return
  execFileSync('npm', ['run', 'build', '-w', '@hearth/web'], {
    cwd: ROOT,
    stdio: 'ignore',
    // vitest sets NODE_ENV=test, which would make Vite build a development bundle.
    env: { ...process.env, NODE_ENV: 'production' },
  })
}

/** Whether any file under `dir` changed after `file` was written. */
function newer(dir: string, file: string): boolean {
  const at = statSync(file).mtimeMs
  return readdirSync(dir, { recursive: true, withFileTypes: true }).some(
    (e) => e.isFile() && statSync(join(e.parentPath, e.name)).mtimeMs > at,
  )
}
