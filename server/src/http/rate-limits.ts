import { getConnInfo } from '@hono/node-server/conninfo'
import type { Context, MiddlewareHandler } from 'hono'
import { MemoryStore, rateLimiter } from 'hono-rate-limiter'
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
  const limits = { ...DEFAULT_RATE_LIMITS }
  for (const key of Object.keys(VARIABLES) as (keyof RateLimits)[]) {
    const raw = env[VARIABLES[key]]
    if (raw === undefined || raw === '') continue
    const value = Number(raw)
    if (!Number.isInteger(value) || value <= 0) {
      throw new Error(`${VARIABLES[key]} must be a positive integer, got "${raw}".`)
    }
    limits[key] = value
  }
  return limits
}

/** The counters of failed authentications, shared by REST and the sync socket's hello. */
export class AuthFailures {
  readonly byAddress = new MemoryStore<AppEnv>()
  readonly byPrefix = new MemoryStore<AppEnv>()

  constructor(readonly limits: RateLimits) {}

  /** Whether `address` or the token's prefix has failed too often; the seconds to wait if so. */
  blocked(address: string, token: string | undefined): number | null {
    const now = Date.now()
    for (const [store, key, limit] of this.keys(address, token)) {
      const hits = store.get(key) as { totalHits: number; resetTime?: Date } | undefined
      if (hits && hits.totalHits >= limit) {
        return Math.max(1, Math.ceil(((hits.resetTime?.getTime() ?? now) - now) / 1000))
      }
    }
    return null
  }

  /** Counts a failed authentication (from the sync socket; REST counts through its middleware). */
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
  return /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')?.[1]
}

function limited(c: Context<AppEnv>, detail: string): Response {
  // The limiter has set Retry-After and the RateLimit-* headers on the context already.
  return problem(c, 429, 'RATE_LIMITED', { detail })
}

/**
 * Refuses, with 429 and `Retry-After`, a client address or a key prefix that failed
 * authentication too often in the window, before its request is authenticated at all: a flood of
 * bad keys costs a map lookup, not a hash and a query. Only answers of 401 to a request that
 * presented a key count.
 */
export function limitFailedAuth(failures: AuthFailures): MiddlewareHandler<AppEnv> {
  const { limits } = failures
  const common = {
    windowMs: limits.windowMs,
    standardHeaders: 'draft-6' as const,
    skipSuccessfulRequests: true,
    // A request without a key costs no hash and no query: only a key that fails counts.
    requestWasSuccessful: (c: Context<AppEnv>) => c.res.status !== 401 || !bearer(c),
    handler: (c: Context<AppEnv>) => limited(c, 'Too many failed authentications; wait and try again.'),
  }
  const byAddress = rateLimiter<AppEnv>({
    ...common,
    limit: limits.authFailuresPerAddress,
    store: failures.byAddress,
    keyGenerator: clientAddress,
  })
  const byPrefix = rateLimiter<AppEnv>({
    ...common,
    limit: limits.authFailuresPerPrefix,
    store: failures.byPrefix,
    keyGenerator: (c) => bearer(c)?.slice(0, 8) ?? '',
    skip: (c) => !bearer(c),
  })
  return async function limitFailedAuth(c, next) {
    return byAddress(c, async () => {
      const refused = await byPrefix(c, next)
      if (refused) c.res = refused
    })
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
