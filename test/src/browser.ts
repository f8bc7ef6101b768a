/**
 * A real Chromium for tests that need a browser: Debian's package (`apt-get install chromium`,
 * which .ci/run does), driven by playwright-core. Nothing is downloaded.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, normalize } from 'node:path'
import { type Browser, type BrowserContext, chromium } from 'playwright-core'

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']

/**
 * The Chromium to run (`CHROMIUM_PATH`, or a system one), or null when there is none. With
 * `HEARTH_REQUIRE_BROWSER` set (CI), a missing browser is an error rather than a skipped test.
 */
export function chromiumPath(): string | null {
  const found = [process.env.CHROMIUM_PATH, ...CANDIDATES].find((p) => p && existsSync(p)) ?? null
  if (!found && process.env.HEARTH_REQUIRE_BROWSER) {
    throw new Error(
      'HEARTH_REQUIRE_BROWSER is set but no Chromium was found: apt-get install -y chromium, or set CHROMIUM_PATH.',
    )
  }
  return found
}

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

function executable(): string {
  const executablePath = chromiumPath()
  if (!executablePath) throw new Error('No Chromium on this machine.')
  return executablePath
}

/** Headless Chromium, with nothing reaching out to the network on its own. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: executable(), headless: true, args: ARGS })
}

/**
 * Headless Chromium with a profile in `userDataDir`, as a person's browser has: its IndexedDB
 * and service worker outlive the browser (a `newContext()` keeps IndexedDB in memory).
 */
export function launchPersistentChromium(
  userDataDir: string,
  options: { viewport?: { width: number; height: number } } = {},
): Promise<BrowserContext> {
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: executable(),
    headless: true,
    args: ARGS,
    viewport: options.viewport ?? { width: 1280, height: 860 },
  })
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.data': 'application/octet-stream',
}

/** Serves a folder's files on loopback, as a web app's host would. */
export async function serveFolder(folder: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname))
    const file = join(folder, path)
    if (!file.startsWith(folder) || !statSync(file, { throwIfNoEntry: false })?.isFile()) {
      res.writeHead(404).end()
      return
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' })
    res.end(readFileSync(file))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
