import type { MiddlewareHandler } from 'hono'
import { cors } from 'hono/cors'

/**
 * Lets web apps on other origins call the API: a browser app with `@hearth/client` resolves
 * `household: 'current'` and a dashboard reads REST from its own origin. Keys travel only in
 * the `Authorization` header, never in cookies, so a page can act only with a key it was
 * given: any origin is allowed unless `HEARTH_CORS_ORIGINS` names the ones that may.
 */
export function allowOrigins(origins: '*' | readonly string[]): MiddlewareHandler {
  const corsHeaders = cors({
    origin: origins === '*' ? '*' : [...origins],
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-Match', 'If-None-Match'],
    exposeHeaders: [
      'X-Request-Id',
      'Idempotent-Replayed',
      'WWW-Authenticate',
      'Location',
      'Retry-After',
      'ETag',
    ],
    // A browser asks once a day per route, not before every write.
    maxAge: 86_400,
  })
  // CORS is a browser's question, and a browser asks it with an `Origin` header. A request without
  // one (a program, a server, a same-origin GET) goes on without it: Hono's cors writes its headers
  // on a response made before the route's, and replacing that response turned every answer into a
  // stream (about 4% of a REST write's time under load, in bench:throughput's profile).
  return async function allowOrigins(c, next) {
    if (c.req.header('origin') !== undefined) return corsHeaders(c, next)
    await next()
    // A listed origin's answer differs by Origin: a cache keeps the two apart. (On the answer
    // itself: `c.header` after the route would copy its body into a stream again.)
    if (origins !== '*') c.res.headers.append('Vary', 'Origin')
  }
}
