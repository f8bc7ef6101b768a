import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from './env.ts'
import { problem } from './problem.ts'

/**
 * Answers 400 `MALFORMED_PATH` to a path with a percent-escape that does not decode (`/app/%`,
 * `%E0%A4%A`, `%FF`), before any route reads it: no handler then meets a path it cannot decode.
 */
export function refuseMalformedPath(): MiddlewareHandler<AppEnv> {
  return async function refuseMalformedPath(c, next) {
    const url = c.req.url
    const start = url.indexOf('/', url.indexOf('//') + 2)
    const end = url.indexOf('?', start)
    const path = url.slice(start, end === -1 ? undefined : end)
    if (path.includes('%')) {
      try {
        decodeURIComponent(path)
      } catch {
        return problem(c, 400, 'MALFORMED_PATH', {
          detail: 'The path holds a percent-escape that is not UTF-8 (such as a lone % or %FF).',
        })
      }
    }
    return next()
  }
}
