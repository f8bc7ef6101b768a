import pg from 'pg'

/** One PostgreSQL server of a connection URL. */
export interface ClusterHost {
  host: string
  port: number
}

/**
 * A connection URL read once: its servers (one, or several as in libpq's
 * `postgres://h1:p1,h2:p2/db`), which of them a connection may land on, and the URL `pg` is given
 * with the first server in place of the list (`pg` and `new URL()` read one host only).
 */
export interface ClusterUrl {
  hosts: ClusterHost[]
  /** `read-write`: only a primary will do; `any`: the first server that answers. */
  targetSessionAttrs: 'read-write' | 'any'
  /** The URL with one host, for `pg`; the host is chosen when a connection opens. */
  singleHostUrl: string
  /** What comes before and after the host in `singleHostUrl`. */
  around: [string, string]
}

const DEFAULT_PORT = 5432

/**
 * Reads a `postgres://` URL with one host or a comma-separated list. `target_session_attrs` is
 * taken off (pg does not know it): `read-write` and `any` are accepted, other values refused.
 * A list without it means `read-write`: a cluster's standbys refuse writes.
 */
export function parseClusterUrl(url: string): ClusterUrl {
  const match = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/.exec(url)
  if (!match) return { hosts: [], targetSessionAttrs: 'any', singleHostUrl: url, around: [url, ''] }
  const [, scheme, userInfo = '', hostList = '', rest = ''] = match
  const hosts = hostList
    .split(',')
    .filter((part) => part !== '')
    .map(parseHost)
  const [pathPart = '', query = ''] = splitOnce(rest, '?')
  const params = new URLSearchParams(query)
  const requested = params.get('target_session_attrs')
  params.delete('target_session_attrs')
  if (requested !== null && requested !== 'read-write' && requested !== 'any') {
    throw new Error(`target_session_attrs=${requested} is not supported; use read-write or any.`)
  }
  const targetSessionAttrs = (requested ??
    (hosts.length > 1 ? 'read-write' : 'any')) as ClusterUrl['targetSessionAttrs']
  const first = hosts[0]
  // A query without the attribute is kept as it was written.
  const search = requested === null ? query : params.toString()
  const around: [string, string] = [`${scheme}${userInfo}`, `${pathPart}${search ? `?${search}` : ''}`]
  return {
    hosts,
    targetSessionAttrs,
    // One host (or none, for a socket named in the query) is left as written: a port left out
    // stays pg's to choose (PGPORT).
    singleHostUrl:
      hosts.length > 1 && first ? urlFor({ around }, first) : `${around[0]}${hostList}${around[1]}`,
    around,
  }
}

/** The URL of one server of a cluster (pg takes a URL's host over a `host` option beside it). */
export function urlFor(cluster: Pick<ClusterUrl, 'around'>, host: ClusterHost): string {
  return `${cluster.around[0]}${formatHost(host.host)}:${host.port}${cluster.around[1]}`
}

/** `parseClusterUrl`, or null for a URL it refuses (for logs and warnings, which must not throw). */
export function readClusterUrl(url: string): ClusterUrl | null {
  try {
    return parseClusterUrl(url)
  } catch {
    return null
  }
}

/** Whether a URL names several servers or asks for a primary: connections must choose their host. */
export function choosesHost(cluster: ClusterUrl): boolean {
  return cluster.hosts.length > 1 || cluster.targetSessionAttrs === 'read-write'
}

function parseHost(part: string): ClusterHost {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(part)
  if (bracketed) return { host: bracketed[1]!, port: bracketed[2] ? Number(bracketed[2]) : DEFAULT_PORT }
  const colon = part.lastIndexOf(':')
  if (colon === -1) return { host: decodeURIComponent(part), port: DEFAULT_PORT }
  return {
    host: decodeURIComponent(part.slice(0, colon)),
    port: Number(part.slice(colon + 1)) || DEFAULT_PORT,
  }
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : encodeURIComponent(host)
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator)
  return at === -1 ? [text, ''] : [text.slice(0, at), text.slice(at + 1)]
}

/** How long a probe of one server may take before the next is tried. */
const PROBE_TIMEOUT_MS = 2_000

/** The primary each URL's connections last found, tried first by the next connection. */
const lastPrimary = new Map<string, ClusterHost>()

/**
 * The server a new connection of `cluster` should open on: the one found last (when it still
 * answers as wanted), else the first of the others that does. `read-write` asks each
 * `select pg_is_in_recovery()` on a short-lived connection; `any` takes the first that answers.
 * Throws a `StoreUnavailableError` when none will do (during a failover, before a standby is
 * promoted).
 */
export async function chooseHost(cluster: ClusterUrl): Promise<ClusterHost> {
  const key = cluster.singleHostUrl + cluster.hosts.map((h) => `${h.host}:${h.port}`).join(',')
  const remembered = lastPrimary.get(key)
  const order = remembered
    ? [remembered, ...cluster.hosts.filter((h) => h.host !== remembered.host || h.port !== remembered.port)]
    : cluster.hosts
  const reasons: string[] = []
  for (const host of order) {
    const reason = await probe(cluster, host)
    if (reason === null) {
      lastPrimary.set(key, host)
      return host
    }
    reasons.push(`${host.host}:${host.port} ${reason}`)
  }
  lastPrimary.delete(key)
  throw new StoreUnavailableError(`No PostgreSQL server accepts writes (${reasons.join('; ')}).`)
}

/** Forgets the primary a URL's connections found, after one of them was refused a write. */
export function forgetPrimary(cluster: ClusterUrl): void {
  lastPrimary.delete(cluster.singleHostUrl + cluster.hosts.map((h) => `${h.host}:${h.port}`).join(','))
}

/** Null when `host` will do, else why not. */
async function probe(cluster: ClusterUrl, host: ClusterHost): Promise<string | null> {
  const client = new pg.Client({
    connectionString: urlFor(cluster, host),
    connectionTimeoutMillis: PROBE_TIMEOUT_MS,
    query_timeout: PROBE_TIMEOUT_MS,
  })
  client.on('error', () => {})
  try {
    await client.connect()
    if (cluster.targetSessionAttrs === 'any') return null
    const { rows } = await client.query<{ standby: boolean }>('select pg_is_in_recovery() as standby')
    return rows[0]?.standby ? 'is a standby' : null
  } catch (error) {
    return `does not answer (${(error as Error).message})`
  } finally {
    client.end().catch(() => {})
  }
}

/**
 * The store cannot be reached or cannot write just now (a failover, a restart): the request
 * may be retried shortly. The server answers it with 503 `STORE_UNAVAILABLE` and `Retry-After`.
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError'
}

/**
 * SQLSTATEs that mean the server went away or cannot serve this connection now: the connection
 * exceptions (class 08), an administrator's or a crash's shutdown (57P01-57P03), and a write sent
 * to a standby (25006, after a demotion).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[1-3]|25006)$/

/** Node's socket errors for a server that refused, dropped or never answered a connection. */
const UNAVAILABLE_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH'])

/** `pg`'s own messages for a connection that ended or never opened. */
const UNAVAILABLE_MESSAGES =
  /^(Connection terminated|Client was closed|Client has encountered a connection error|timeout expired|timeout exceeded when trying to connect|Query read timeout)/

/** Whether an error (or its cause) says the store is unavailable rather than that the request failed. */
export function isStoreUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof StoreUnavailableError) return true
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && (UNAVAILABLE_STATES.test(code) || UNAVAILABLE_SOCKET_CODES.has(code)))
      return true
    if (UNAVAILABLE_MESSAGES.test(e.message)) return true
  }
  return false
}

/**
 * A `pg.Client` configuration for `url` on the server chosen as `chooseHost` chooses (or the
 * only one), for connections of their own such as the sync hub's `LISTEN`.
 */
export async function clientConfigFor(url: string): Promise<pg.ClientConfig> {
  const cluster = parseClusterUrl(url)
  if (!choosesHost(cluster)) return { connectionString: cluster.singleHostUrl }
  return { connectionString: urlFor(cluster, await chooseHost(cluster)) }
}
