import type { MiddlewareHandler } from 'hono'
import { secureHeaders } from 'hono/secure-headers'
import type { AppEnv } from './env.ts'

/** What both pages forbid: plugins, a foreign `<base>`, forms posting elsewhere, and being framed. */
const COMMON = {
  defaultSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  imgSrc: ["'self'", 'data:'],
}

/**
 * The headers of the pages people open in a browser (Hono's `secureHeaders`): a
 * `Content-Security-Policy` with no inline or evaluated script, `frame-ancestors 'none'`,
 * `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`, among its other defaults.
 * No `Strict-Transport-Security`: whether the server is reached over https is the proxy's to say.
 */
function pageHeaders(policy: Parameters<typeof secureHeaders>[0]): MiddlewareHandler<AppEnv> {
  return secureHeaders({
    ...policy,
    referrerPolicy: 'no-referrer',
    xFrameOptions: 'DENY',
    strictTransportSecurity: false,
  }) as MiddlewareHandler<AppEnv>
}

/**
 * The household app: its scripts are files of its build; its embedded store compiles WebAssembly
 * (`'wasm-unsafe-eval'`, which allows no JavaScript `eval`); it may talk to the Hearth server its
 * user names on the sign-in screen, so any http(s) or ws(s) origin may be connected to.
 */
export function appPageSecurity(): MiddlewareHandler<AppEnv> {
  return pageHeaders({
    contentSecurityPolicy: {
      ...COMMON,
      scriptSrc: ["'self'", "'wasm-unsafe-eval'"],
      styleSrc: ["'self'"],
      workerSrc: ["'self'"],
      manifestSrc: ["'self'"],
      connectSrc: ["'self'", 'https:', 'http:', 'wss:', 'ws:'],
    },
  })
}

/**
 * The API reference (Swagger UI from local files): it reads only this server's OpenAPI document.
 * Swagger UI adds a `<style>` element of its own, so inline styles are allowed here (not scripts).
 */
export function docsPageSecurity(): MiddlewareHandler<AppEnv> {
  return pageHeaders({
    contentSecurityPolicy: {
      ...COMMON,
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      connectSrc: ["'self'"],
    },
  })
}
