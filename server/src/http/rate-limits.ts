import { getConnInfo } from '@hono/node-server/conninfo'
import type { Context, MiddlewareHandler } from 'hono'
import { rateLimiter } from 'hono-rate-limiter'
import ipaddr from 'ipaddr.js'
import { bearerToken } from '../auth/api-key-token.ts'
import { FailureBackoff } from '../auth/failure-backoff.ts'
import { positiveIntegersFromEnv } from '../sync/socket-limits.ts'
import type { ClientAddresses } from './client-address.ts'
import type { AppEnv } from './env.ts'
import { EngineError, problem } from './problem.ts'

/** How much one client may ask of one server instance; counters are kept per instance. */
export interface RateLimits {
  /** Failed authentications per client address per window, REST, sync, notes and invitation codes together. */
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

/** The longest a source that keeps failing is blocked: an hour (or one window, if longer). */
export const MAX_AUTH_BLOCK_MS = 3_600_000

/**
 * How long a blocked source's wrong attempt waits for its 429, and how many such answers may wait
 * at once (past that they are answered at once, so waiting answers cannot fill the server's memory).
 * A flood that waits for each answer before sending the next then arrives this much slower, and
 * costs the members beside it fewer lookups.
 */
export const BLOCKED_ANSWER_HOLD = { ms: 1000, max: 512 }

/**
 * The counters of failed authentications, shared by REST, the sync socket's hello and note
 * sockets. A credential is always verified first (a hash and one indexed lookup); only one that
 * failed is counted, after it failed, per client address and per key prefix, and a source past its
 * limit has its wrong credentials answered 429 for a window, then doubling blocks up to an hour.
 * A credential that verifies is never asked about, so no flood can lock its holder out.
 */
export class AuthFailures {
  readonly byAddress: FailureBackoff
  readonly byPrefix: FailureBackoff
  private held = 0

  constructor(
    readonly limits: RateLimits,
    clock: () => number = Date.now,
  ) {
    const backoff = (limit: number) =>
      new FailureBackoff(
        { limit, windowMs: limits.windowMs, maxBlockMs: Math.max(MAX_AUTH_BLOCK_MS, limits.windowMs) },
        clock,
      )
    this.byAddress = backoff(limits.authFailuresPerAddress)
    this.byPrefix = backoff(limits.authFailuresPerPrefix)
  }

  /**
   * Counts a failed authentication from `address` with `token` (none for a wrong invitation code);
   * answers the seconds its source must wait, or null while it is within its limits. An address
   * already blocked is not counted against the prefix too, so one address adds at most its limit
   * of prefixes to memory in a window.
   */
  failed(address: string, token: string | undefined): number | null {
    const source = failureSource(address)
    const wait =
      this.byAddress.blockedFor(source) ||
      Math.max(this.byAddress.failed(source), token ? this.byPrefix.failed(token.slice(0, 8)) : 0)
    return wait > 0 ? Math.max(1, Math.ceil(wait / 1000)) : null
  }

  /**
   * Verifies a credential with `verify`; when it fails with 401, counts the failure and, past the
   * limits, fails with 429 `RATE_LIMITED` instead.
   */
  async attempt<T>(address: string, token: string | undefined, verify: () => Promise<T>): Promise<T> {
    try {
      return await verify()
    } catch (error) {
      if (!(error instanceof EngineError && error.status === 401) || !token) throw error
      const wait = this.failed(address, token)
      if (wait) {
        await this.hold()
        throw new EngineError(
          429,
          'RATE_LIMITED',
          `Too many failed authentications; wait ${wait} s and try again.`,
        )
      }
      throw error
    }
  }

  /** Holds a blocked source's answer for `BLOCKED_ANSWER_HOLD.ms`, unless too many are held already. */
  async hold(): Promise<void> {
    if (this.held >= BLOCKED_ANSWER_HOLD.max) return
    this.held++
    await new Promise((resolve) => setTimeout(resolve, BLOCKED_ANSWER_HOLD.ms))
    this.held--
  }
}

/** What failures are counted against: an IPv6 client by its /64, the block one subscriber holds. */
export function failureSource(address: string): string {
  if (!ipaddr.IPv6.isValid(address)) return address
  const parts = ipaddr.IPv6.parse(address).parts.slice(0, 4)
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`
}

/** The client's address, as `resolveClientAddress` found it for this request. */
export function clientAddress(c: Context<AppEnv>): string {
  const resolved = c.get('clientAddress')
  if (resolved) return resolved
  try {
    return getConnInfo(c).remote.address ?? 'unknown'
  } catch {
    return 'unknown'
  }
}

/**
 * Finds the client's address once per request, the socket's peer unless that is a trusted proxy
 * (`ClientAddresses`), for the limits and the logs after it.
 */
export function resolveClientAddress(addresses: ClientAddresses): MiddlewareHandler<AppEnv> {
  return async function resolveClientAddress(c, next) {
    let peer: string | undefined
    try {
      peer = getConnInfo(c).remote.address
    } catch {}
    c.set(
      'clientAddress',
      addresses.of(peer, (name) => c.req.header(name)),
    )
    return next()
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
 * Redeeming an invitation, or starting a passkey for one: a wrong code (404) or a spent one (410)
 * counts as a failure.
 */
const REDEEM = /^\/invitations\/(redeem|passkey\/options)$/

/**
 * Counts failed authentications and answers a source past its limits with 429 and `Retry-After`,
 * after its credential was checked: a request whose key works, or whose invitation code redeems,
 * is never refused here. A failure is an answer of 401 to a request that presented a key, or of
 * 404 or 410 to `POST /invitations/redeem` or `POST /invitations/passkey/options`; a request with
 * no key at all is not counted.
 */
export function limitFailedAuth(failures: AuthFailures): MiddlewareHandler<AppEnv> {
  return async function limitFailedAuth(c, next) {
    await next()
    const token = bearer(c)
    const status = c.res.status
    const wrongKey = status === 401 && token !== undefined
    const wrongCode = (status === 404 || status === 410) && c.req.method === 'POST' && REDEEM.test(c.req.path)
    if (!wrongKey && !wrongCode) return
    const wait = failures.failed(clientAddress(c), wrongKey ? token : undefined)
    if (!wait) return
    await failures.hold()
    c.res = problem(c, 429, 'RATE_LIMITED', {
      detail: 'Too many failed authentications; wait and try again.',
      headers: { 'retry-after': String(wait) },
    })
    c.res.headers.delete('www-authenticate')
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
