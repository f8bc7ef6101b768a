import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '..')
const FORBIDDEN = '@hearth/server'

/** Every workspace package by name, with its folder and its `exports` map. */
function workspaces(): Map<string, { dir: string; exports: Record<string, string> }> {
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] }
  const byName = new Map<string, { dir: string; exports: Record<string, string> }>()
  for (const dir of root.workspaces) {
    const pkg = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8'))
    const exports = typeof pkg.exports === 'string' ? { '.': pkg.exports } : (pkg.exports ?? {})
    byName.set(pkg.name, { dir: join(ROOT, dir), exports })
  }
  return byName
}

/** The module specifiers a file imports or re-exports, statically or dynamically. */
function specifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const found: string[] = []
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g))
    found.push(m[1]!)
  for (const m of text.matchAll(/(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g)) found.push(m[1]!)
  for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(m[1]!)
  return found
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name))
}

/**
 * Follows imports from `start` through relative paths and workspace packages (the test fixtures
 * included), and returns each chain that ends in the server. npm packages are not followed.
 */
function chainsToServer(
  start: string,
  packages: ReturnType<typeof workspaces>,
  visited: Set<string>,
): string[][] {
  const chains: string[][] = []
  const walk = (file: string, path: string[]) => {
    if (visited.has(file)) return
    visited.add(file)
    for (const spec of specifiers(file)) {
      if (spec === FORBIDDEN || spec.startsWith(`${FORBIDDEN}/`)) {
        chains.push([...path, spec])
        continue
      }
      let target: string | undefined
      if (spec.startsWith('.')) target = resolve(dirname(file), spec)
      else {
        const name = spec.split('/').slice(0, 2).join('/')
        const pkg = packages.get(name)
        const entry = pkg?.exports[`.${spec.slice(name.length)}`]
        if (pkg && entry) target = join(pkg.dir, entry)
      }
      if (target && existsSync(target)) walk(target, [...path, relative(ROOT, target)])
    }
  }
  walk(start, [relative(ROOT, start)])
  return chains
}

describe('the engine stands alone', () => {
  it('has no file, tests and their fixtures included, that loads @hearth/server', () => {
    const packages = workspaces()
    const visited = new Set<string>()
    const chains = sourceFiles(join(ROOT, 'packages/engine/src')).flatMap((file) =>
      chainsToServer(file, packages, visited),
    )
    expect(chains.map((chain) => chain.join(' → '))).toEqual([])
    // The walk reached the store fixture the engine's database tests use, so it follows packages.
    expect(visited).toContain(join(ROOT, 'test/src/store-fixture.ts'))
  })
})
