import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll } from 'vitest'
import { launchChromium } from '../src/browser.ts'
import { stale } from '../src/builds.ts'

const ROOT = join(import.meta.dirname, '..', '..')

/**
 * Builds the web app when its bundle is missing or older than its sources. The server serves
 * packages/web/dist at /app; `npm install` builds it (the root `prepare` script), and a test
 * never looks at a stale screen.
 */
export function ensureWebBuild(): void {
  // The bundle holds the SDK and the engine from their sources too (the replica's storage, say).
  const sources = ['packages/web/src', 'client-sdk/src', 'packages/engine/src']
  if (!stale(['packages/web/dist/index.html'], sources)) return
  execFileSync('npm', ['run', 'build', '-w', '@hearth/web'], {
    cwd: ROOT,
    stdio: 'ignore',
    // vitest sets NODE_ENV=test, which would make Vite build a development bundle.
    env: { ...process.env, NODE_ENV: 'production' },
  })
}

/**
 * One Chromium for a test file's tests, on an app bundle built from its sources: launched before
 * them, closed after them. Call at the top level; the answer gives the browser inside a test.
 */
export function useWebBrowser(): () => Browser {
  let browser: Browser | undefined
  beforeAll(async () => {
    ensureWebBuild()
    const launched = await launchChromium()
    // A screen that reads the replica shows once the replica is open, which on a busy machine
    // takes longer than Playwright's default 30 s for a new device: every context's waits get 90 s.
    const newContext = launched.newContext.bind(launched)
    launched.newContext = async (options) => {
      const context = await newContext(options)
      context.setDefaultTimeout(90_000)
      return context
    }
    browser = launched
  }, 180_000)
  afterAll(async () => {
    await browser?.close()
  })
  return () => {
    if (!browser) throw new Error('useWebBrowser: Chromium starts in beforeAll; use it inside a test.')
    return browser
  }
}
