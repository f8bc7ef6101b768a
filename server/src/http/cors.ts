import { cors } from 'hono/cors'

/**
 * Lets web apps on other origins call the API: a browser app with `@hearth/client` resolves
 * `household: 'current'` and a dashboard reads REST from its own origin. Keys travel only in
 * the `Authorization` header, never in cookies, so a page can act only with a key it was
 * given: any origin is allowed unless `HEARTH_CORS_ORIGINS` names the ones that may.
 */
export function allowOrigins(origins: '*' | readonly string[]) {
  return cors({
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
}
