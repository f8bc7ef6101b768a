/** What one sync socket, and all of them together, may take from the server. */
export interface SyncSocketLimits {
  /** Largest frame before a valid hello, in bytes. */
  helloFrameBytes: number
  /** Largest frame after hello (a push batch), in bytes. */
  frameBytes: number
  /** How long a socket may stay open without a valid hello, in milliseconds. */
  helloTimeoutMs: number
  /**
   * How often the server pings each socket, in milliseconds; one that has not answered the
   * previous ping by then is dropped.
   */
  heartbeatMs: number
  /** Open sync sockets per server instance. */
  maxSockets: number
  /** Joined sync sessions and note sockets per client address. */
  maxSocketsPerAddress: number
  /**
   * Sync sockets per client address that have not said hello yet, a budget apart: past it the
   * oldest of them is closed (4408) to make room, so they never keep a member from joining.
   */
  maxUnjoinedSocketsPerAddress: number
  /** Open sync sessions per API key. */
  maxSessionsPerKey: number
  /** Devices (client ids) one API key may bind in one household. */
  maxDevicesPerKey: number
}

/** The defaults, documented in the README's Configuration table and docs/sync.md. */
export const DEFAULT_SYNC_SOCKET_LIMITS: SyncSocketLimits = {
  helloFrameBytes: 4 * 1024,
  frameBytes: 4 * 1024 * 1024,
  helloTimeoutMs: 5_000,
  heartbeatMs: 30_000,
  maxSockets: 10_000,
  maxSocketsPerAddress: 64,
  maxUnjoinedSocketsPerAddress: 16,
  maxSessionsPerKey: 16,
  maxDevicesPerKey: 64,
}

const VARIABLES: Record<keyof SyncSocketLimits, string> = {
  helloFrameBytes: 'HEARTH_SYNC_HELLO_FRAME_BYTES',
  frameBytes: 'HEARTH_SYNC_FRAME_BYTES',
  helloTimeoutMs: 'HEARTH_SYNC_HELLO_TIMEOUT_MS',
  heartbeatMs: 'HEARTH_SYNC_HEARTBEAT_MS',
  maxSockets: 'HEARTH_SYNC_MAX_SOCKETS',
  maxSocketsPerAddress: 'HEARTH_SYNC_MAX_SOCKETS_PER_ADDRESS',
  maxUnjoinedSocketsPerAddress: 'HEARTH_SYNC_MAX_UNJOINED_SOCKETS_PER_ADDRESS',
  maxSessionsPerKey: 'HEARTH_SYNC_MAX_SESSIONS_PER_KEY',
  maxDevicesPerKey: 'HEARTH_SYNC_MAX_DEVICES_PER_KEY',
}

/**
 * `defaults`, each overridden by its variable in `env` when set; a value that is not a positive
 * integer stops start-up naming the variable.
 */
export function positiveIntegersFromEnv<T extends { [K in keyof T]: number }>(
  defaults: T,
  variables: Record<keyof T, string>,
  env: NodeJS.ProcessEnv,
): T {
  const values: Record<string, number> = { ...defaults }
  for (const key of Object.keys(variables) as (keyof T & string)[]) {
    const name = variables[key]
    const raw = env[name]
    if (raw === undefined || raw === '') continue
    const value = Number(raw)
    if (!Number.isInteger(value) || value <= 0) {
      throw new Error(`${name} must be a positive integer, got "${raw}".`)
    }
    values[key] = value
  }
  return values as T
}

/** Reads the limits from the environment; a bad value stops start-up naming the variable. */
export function syncSocketLimitsFromEnv(env: NodeJS.ProcessEnv): SyncSocketLimits {
  const limits = positiveIntegersFromEnv(DEFAULT_SYNC_SOCKET_LIMITS, VARIABLES, env)
  if (limits.helloFrameBytes > limits.frameBytes) {
    throw new Error('HEARTH_SYNC_HELLO_FRAME_BYTES must not exceed HEARTH_SYNC_FRAME_BYTES.')
  }
  if (limits.maxUnjoinedSocketsPerAddress > limits.maxSocketsPerAddress) {
    throw new Error(
      'HEARTH_SYNC_MAX_UNJOINED_SOCKETS_PER_ADDRESS must not exceed HEARTH_SYNC_MAX_SOCKETS_PER_ADDRESS.',
    )
  }
  return limits
}

/** Counts open things by a key (an address, an API key) against a cap. */
export class OpenCounter {
  private readonly counts = new Map<string, number>()

  constructor(private readonly cap: number) {}

  /** Takes one for `key`; false when `key` is at its cap. */
  take(key: string): boolean {
    const count = this.counts.get(key) ?? 0
    if (count >= this.cap) return false
    this.counts.set(key, count + 1)
    return true
  }

  /** Whether `key` is at its cap. */
  full(key: string): boolean {
    return (this.counts.get(key) ?? 0) >= this.cap
  }

  release(key: string): void {
    const count = (this.counts.get(key) ?? 0) - 1
    if (count <= 0) this.counts.delete(key)
    else this.counts.set(key, count)
  }
}

/**
 * The sockets of each address that have not said hello, oldest first, within a budget per
 * address: taking one more past it gives back the oldest, for the caller to close.
 */
export class UnjoinedSockets<T> {
  private readonly byAddress = new Map<string, Set<T>>()

  constructor(private readonly cap: number) {}

  /** Counts `socket` for `address`; returns the oldest socket it displaces, when the budget was full. */
  add(address: string, socket: T): T | undefined {
    const sockets = this.byAddress.get(address) ?? new Set<T>()
    this.byAddress.set(address, sockets)
    let displaced: T | undefined
    if (sockets.size >= this.cap) {
      displaced = sockets.values().next().value
      sockets.delete(displaced!)
    }
    sockets.add(socket)
    return displaced
  }

  /** Stops counting `socket` (it joined or closed); harmless when it is not counted. */
  remove(address: string, socket: T): void {
    const sockets = this.byAddress.get(address)
    if (!sockets?.delete(socket)) return
    if (sockets.size === 0) this.byAddress.delete(address)
  }
}
