import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '..')

/** The product's own source: every package, the server and the client SDK, without their tests. */
function productSources(): { path: string; text: string }[] {
  const roots = [
    ...readdirSync(join(ROOT, 'packages')).map((name) => join(ROOT, 'packages', name, 'src')),
    join(ROOT, 'server/src'),
    join(ROOT, 'client-sdk/src'),
  ]
  return roots.flatMap((root) =>
    readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
      .map((e) => join(e.parentPath, e.name))
      .map((path) => ({ path: relative(ROOT, path), text: readFileSync(path, 'utf8') })),
  )
}

/**
 * Where a refusal names its status and code: `new EngineError(404, 'NOT_FOUND'`,
 * `problem(c, 413, 'PAYLOAD_TOO_LARGE'`, and the helpers with a fixed status, `invalid('X'` (400)
 * and `conflict('X'` (409). `notFound`, `insufficientScope` and `ownerOnly` build an EngineError
 * in errors.ts, so the first form finds their codes.
 */
const THROWN = [
  { pattern: /new EngineError\(\s*(\d{3}),\s*'([A-Z][A-Z0-9_]*)'/g, status: (m: RegExpMatchArray) => m[1]! },
  { pattern: /\bproblem\(\s*\w+,\s*(\d{3}),\s*'([A-Z][A-Z0-9_]*)'/g, status: (m: RegExpMatchArray) => m[1]! },
  { pattern: /\binvalid\(\s*()'([A-Z][A-Z0-9_]*)'/g, status: () => '400' },
  { pattern: /\bconflict\(\s*()'([A-Z][A-Z0-9_]*)'/g, status: () => '409' },
]

describe('docs/errors.md', () => {
  it('lists every error code the code can answer, with its status', () => {
    const thrown = new Map<string, Set<string>>()
    for (const { path, text } of productSources()) {
      for (const { pattern, status } of THROWN) {
        for (const m of text.matchAll(pattern)) {
          const key = `${status(m)} ${m[2]}`
          thrown.set(key, (thrown.get(key) ?? new Set()).add(path))
        }
      }
    }
    const documented = new Set(
      [
        ...readFileSync(join(ROOT, 'docs/errors.md'), 'utf8').matchAll(/^\| (\d{3}) \| `([A-Z0-9_]+)` \|/gm),
      ].map((m) => `${m[1]} ${m[2]}`),
    )
    const missing = [...thrown]
      .filter(([key]) => !documented.has(key))
      .map(([key, paths]) => `${key} (${[...paths].join(', ')})`)
    expect(missing).toEqual([])
    // The patterns still find the codes they were written for.
    expect(thrown.has('404 NOT_FOUND') && thrown.has('409 TAG_NAME_TAKEN')).toBe(true)
  })
})

/**
 * Variables only the test suites read (TEST_DATABASE_URL, TEST_LOG_LEVEL, SYNC_PROPERTY_RUNS,
 * HEARTH_TEST_TEMPLATE_DIR) live in test files and test/, which this check does not read; the
 * README's Development table covers the one a user runs the suites with.
 */
describe('README configuration table', () => {
  it('lists every environment variable the product reads', () => {
    const read = new Map<string, Set<string>>()
    for (const { path, text } of productSources()) {
      const names = [
        ...[...text.matchAll(/\b(?:process\.)?env\.([A-Z][A-Z0-9_]*)\b/g)].map((m) => m[1]!),
        ...[...text.matchAll(/\b(?:process\.)?env\[\s*'([A-Z][A-Z0-9_]*)'\s*\]/g)].map((m) => m[1]!),
        ...[...text.matchAll(/\{([^}]*)\}\s*=\s*process\.env\b/g)].flatMap((m) =>
          m[1]!.split(',').map((name) => name.split(':')[0]!.trim()),
        ),
      ]
      for (const name of names.filter(Boolean)) read.set(name, (read.get(name) ?? new Set()).add(path))
    }
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const configuration = readme.slice(
      readme.indexOf('## Configuration'),
      readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1),
    )
    const listed = new Set([...configuration.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]!))
    const missing = [...read]
      .filter(([name]) => !listed.has(name))
      .map(([name, paths]) => `${name} (${[...paths].join(', ')})`)
    expect(missing).toEqual([])
    expect(read.has('PORT')).toBe(true)
  })
})

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-')
}

describe('links between the docs', () => {
  it('point at files and headings that exist', () => {
    const pages = [
      join(ROOT, 'README.md'),
      ...readdirSync(join(ROOT, 'docs'), { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile() && e.name.endsWith('.md'))
        .map((e) => join(e.parentPath, e.name)),
    ]
    const broken: string[] = []
    for (const page of pages) {
      for (const [, target] of readFileSync(page, 'utf8').matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue
        const [path, anchor] = target!.split('#')
        const file = path ? resolve(dirname(page), path) : page
        const text = existsSync(file) ? readFileSync(file, 'utf8') : null
        const headings = new Set([...(text ?? '').matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1]!)))
        if (text === null || (anchor && !headings.has(anchor)))
          broken.push(`${relative(ROOT, page)}: ${target}`)
      }
    }
    expect(broken).toEqual([])
  })
})
