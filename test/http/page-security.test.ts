import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'

const server = useTestServer()
const built = existsSync(join(import.meta.dirname, '../../packages/web/dist/index.html'))

/** The policy's directives by name. */
function directives(policy: string | null): Record<string, string> {
  return Object.fromEntries(
    (policy ?? '')
      .split(';')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => [d.split(/\s+/)[0]!, d.split(/\s+/).slice(1).join(' ')]),
  )
}

describe('the pages people open: /app and /docs', () => {
  it.runIf(built)('sends the app with a policy that allows no inline script and no framing', async () => {
    for (const path of ['/app/', '/app/budget/2026-11', '/app/sw.js', '/app/manifest.webmanifest']) {
      const res = await fetch(`${server.url}${path}`)
      expect([path, res.status]).toEqual([path, 200])
      const policy = directives(res.headers.get('content-security-policy'))
      expect(policy['frame-ancestors']).toBe("'none'")
      expect(policy['script-src']).not.toMatch(/'unsafe-inline'|'unsafe-eval'|\*/)
      expect(policy['object-src']).toBe("'none'")
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('referrer-policy')).toBe('no-referrer')
    }
  })

  it('sends the reference page and its assets with the same guards', async () => {
    for (const path of ['/docs', '/docs/init.js', '/docs/assets/swagger-ui.css']) {
      const res = await fetch(`${server.url}${path}`)
      expect([path, res.status]).toEqual([path, 200])
      const policy = directives(res.headers.get('content-security-policy'))
      expect(policy['frame-ancestors']).toBe("'none'")
      expect(policy['script-src']).toBe("'self'")
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('referrer-policy')).toBe('no-referrer')
    }
    // The page loads its script from a file, never inline.
    const page = await (await fetch(`${server.url}/docs`)).text()
    expect(page).not.toMatch(/<script>(?!<\/script>)|<script(?![^>]*\bsrc=)[^>]*>/)
  })

  it('answers a malformed percent-escape with 400 MALFORMED_PATH, never 500', async () => {
    const paths = [
      '/app/%',
      '/app/%E0%A4%A',
      '/app/assets/%zz.js',
      '/docs/assets/%',
      '/households/%/accounts',
      '/users/me/%FF',
      '/%',
    ]
    for (const path of paths) {
      const res = await fetch(`${server.url}${path}`)
      const body = await res.json()
      expect([path, res.status, body.code]).toEqual([path, 400, 'MALFORMED_PATH'])
    }
    // A well-formed escape is still just a path.
    expect((await fetch(`${server.url}/app/%61bout`)).status).not.toBe(400)
  })
})
