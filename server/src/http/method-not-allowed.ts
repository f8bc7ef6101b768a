import { RESERVED_PATH_WORDS } from './reserved-path-words.ts'

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

interface RoutePattern {
  method: string
  pattern: RegExp
}

/** A Hono path (`/a/:b/*`) as an anchored pattern whose groups are its parameters. */
function patternOf(path: string): RegExp {
  const source = path
    .split('/')
    .map((part) =>
      part === '*' ? '.*' : part.startsWith(':') ? '([^/]+)' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/')
  return new RegExp(`^${source}/?$`)
}

/**
 * The methods some route serves at `path`, for a 405's `Allow`; empty when no route has the path.
 * A parameter that is a fixed word of the contract (`payees/page`) names no row, so it matches none.
 */
export function methodsAllowed(routes: readonly { method: string; path: string }[]) {
  let patterns: RoutePattern[] | null = null
  return function allowed(path: string): string[] {
    patterns ??= routes
      .filter((r) => (METHODS as readonly string[]).includes(r.method))
      .map((r) => ({ method: r.method, pattern: patternOf(r.path) }))
    const found = new Set<string>()
    for (const { method, pattern } of patterns) {
      const match = pattern.exec(path)
      if (match && !match.slice(1).some((p) => RESERVED_PATH_WORDS.has(p))) found.add(method)
    }
    // Hono answers HEAD wherever it answers GET.
    const methods: string[] = METHODS.filter((m) => found.has(m))
    return found.has('GET') ? [...methods, 'HEAD'] : methods
  }
}
