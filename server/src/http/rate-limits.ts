import { getConnInfo } from '@hono/node-server/conninfo'
import type { Context, MiddlewareHandler } from 'hono'
import { MemoryStore, rateLimiter } from 'hono-rate-limiter'
import { bearerToken } from '../auth/api-key-token.ts'
import { positiveIntegersFromEnv } from '../sync/socket-limits.ts'
import type { AppEnv } from './env.ts'
import { problem } from './problem.ts'

/** How much one client may ask of one server instance; counters are kept per instance. */
export interface RateLimits {
  /** Failed authentications per client address per window, REST and sync together. */
  authFailuresPerAddress: number
  /** Failed authentications per key prefix (the first 8 characters) per window. */
  authFailuresPerPrefix: number
  /** REST requests per API key per window. */
  restPerKey: number
  /** Sync pushes per device per second before further pushes wait their turn. */
  pushesPerSecond: number
  /** The window of the counters above, in milliseconds. */
  windowMs: number
}

/** The defaults, documented in docs/api/README.md and the README's Configuration table. */
export const DEFAULT_RATE_LIMITS: RateLimits = {
  authFailuresPerAddress: 30,
  authFailuresPerPrefix: 30,
  restPerKey: 6000,
  pushesPerSecond: 50,
  windowMs: 60_000,
}

const VARIABLES: Record<keyof RateLimits, string> = {
  authFailuresPerAddress: 'HEARTH_RATE_AUTH_FAILURES_PER_ADDRESS',
  authFailuresPerPrefix: 'HEARTH_RATE_AUTH_FAILURES_PER_PREFIX',
  restPerKey: 'HEARTH_RATE_REST_PER_KEY',
  pushesPerSecond: 'HEARTH_RATE_PUSHES_PER_SECOND',
  windowMs: 'HEARTH_RATE_WINDOW_MS',
}

/** Reads the limits from the environment; a bad value stops start-up naming the variable. */
export function rateLimitsFromEnv(env: NodeJS.ProcessEnv): RateLimits {
  return positiveIntegersFromEnv(DEFAULT_RATE_LIMITS, VARIABLES, env)
}

/**
 * The counters of failed authentications, shared by REST and the sync socket's hello: the
 * library's store counts and expires them; only a key that failed is counted, after it failed,
 * so any number of valid requests in flight never counts against anyone.
 */
export class AuthFailures {
  readonly byAddress = new MemoryStore<AppEnv>()
  readonly byPrefix = new MemoryStore<AppEnv>()

  constructor(readonly limits: RateLimits) {
    const options = { windowMs: limits.windowMs } as Parameters<MemoryStore<AppEnv>['init']>[0]
    this.byAddress.init(options)
    this.byPrefix.init(options)
  }

  /** Whether `address` or the token's prefix has failed too often; the seconds to wait if so. */
  blocked(address: string, token: string | undefined): number | null {
    const now = Date.now()
    for (const [store, key, limit] of this.keys(address, token)) {
      const hits = store.get(key) as { totalHits: number; resetTime?: Date } | undefined
      const resetAt = hits?.resetTime?.getTime() ?? 0
      if (hits && resetAt > now && hits.totalHits >= limit)
        return Math.max(1, Math.ceil((resetAt - now) / 1000))
    }
    return null
  }

  /** Counts a failed authentication. */
  failed(address: string, token: string | undefined): void {
    for (const [store, key] of this.keys(address, token)) void store.increment(key)
  }

  private keys(address: string, token: string | undefined) {
    const keys: [MemoryStore<AppEnv>, string, number][] = [
      [this.byAddress, address, this.limits.authFailuresPerAddress],
    ]
    if (token) keys.push([this.byPrefix, token.slice(0, 8), this.limits.authFailuresPerPrefix])
    return keys
  }
}

/** The client's address as the socket sees it (no proxy header is trusted). */
export function clientAddress(c: Context<AppEnv>): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown'
  } catch {
    return 'unknown'
  }
}

function bearer(c: Context<AppEnv>): string | undefined {
  return bearerToken(c.req.header('authorization'))
}

function limited(c: Context<AppEnv>, detail: string): Response {
  // The limiter has set Retry-After and the RateLimit-* headers on the context already.
  return problem(c, 429, 'RATE_LIMITED', { detail })
}

/**
 * Refuses, with 429 and `Retry-After`, a client address or a key prefix that failed
 * authentication too often in the window, before its request is authenticated at all: a flood of
 * bad keys costs a map lookup, not a hash and a query. Only answers of 401 to a request that
 * presented a key count; a request with no key costs nothing and is not counted.
 */
export function limitFailedAuth(failures: AuthFailures): MiddlewareHandler<AppEnv> {
  return async function limitFailedAuth(c, next) {
    const address = clientAddress(c)
    const token = bearer(c)
    const wait = failures.blocked(address, token)
    if (wait) {
      return problem(c, 429, 'RATE_LIMITED', {
        detail: 'Too many failed authentications; wait and try again.',
        headers: { 'retry-after': String(wait) },
      })
    }
    await next()
    if (c.res.status === 401 && token) failures.failed(address, token)
  }
}

/** Limits REST requests per API key (after authentication), with `RateLimit-*` headers. */
export function limitPerKey(limits: RateLimits): MiddlewareHandler<AppEnv> {
  return rateLimiter<AppEnv>({
    windowMs: limits.windowMs,
    limit: limits.restPerKey,
    standardHeaders: 'draft-6',
    keyGenerator: (c) => c.get('caller')?.keyId ?? '',
    skip: (c) => !c.get('caller'),
    handler: (c) => limited(c, 'Too many requests for this API key; wait and try again.'),
  })
}
