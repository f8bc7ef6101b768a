import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const src = dirname(fileURLToPath(import.meta.url))

/** Engine folders and files every domain may use: they hold no domain. */
const PLATFORM = new Set([
  'changes',
  'database.ts',
  'errors.ts',
  'events',
  'mutator',
  'outbox',
  'scopes.ts',
  'shared',
  'store',
])

/**
 * The foundation domains and the domains below each. Anything else (catalog's features above
 * identity, budgets, rules, recurrences, …) plugs in through the hooks wired in `hooks.ts`.
 */
const FOUNDATIONS: Record<string, readonly string[]> = {
  // Sign-in is identity's credentials (passwords, sessions, links) in a folder of its own: the
  // two are one layer, and may use each other; nothing above them may be used by either.
  identity: ['sign-in'],
  'sign-in': ['identity'],
  ledger: ['identity', 'catalog'],
}

/** Each import of a domain's source files (tests aside) that leaves the domain, as `file -> target`. */
function importsLeaving(domain: string): { from: string; target: string }[] {
  const out: { from: string; target: string }[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) {
        walk(path)
        continue
      }
      if (
        !entry.name.endsWith('.ts') ||
        entry.name.endsWith('.test.ts') ||
        entry.name === 'test-fixture.ts'
      ) {
        continue
      }
      const text = readFileSync(path, 'utf8')
      for (const m of text.matchAll(/(?:from|import)\s+['"]([^'"]+)['"]/g)) {
        const spec = m[1]!
        const from = relative(src, path)
        if (spec.startsWith('@hearth/')) out.push({ from, target: spec })
        if (!spec.startsWith('.')) continue
        const target = relative(src, resolve(dirname(path), spec))
        if (target.split('/')[0] !== domain) out.push({ from, target })
      }
    }
  }
  walk(join(src, domain))
  return out
}

describe('engine layering', () => {
  for (const [domain, below] of Object.entries(FOUNDATIONS)) {
    it(`keeps ${domain} free of imports from the domains above it`, () => {
      const leaving = importsLeaving(domain)
      expect(leaving.length).toBeGreaterThan(0)
      const upward = leaving.filter(({ target }) => {
        const top = target.split('/')[0]!
        return !PLATFORM.has(top) && !below.includes(top)
      })
      expect(upward).toEqual([])
    })
  }
})
