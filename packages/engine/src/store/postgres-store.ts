import { Kysely } from 'kysely'
import pg from 'pg'
import type { Database } from '../database.ts'
import {
  type ClusterUrl,
  chooseHost,
  choosesHost,
  forgetPrimary,
  parseClusterUrl,
  StoreUnavailableError,
} from './cluster-url.ts'
import { PipelinedPostgresDriver } from './pipelined-postgres-driver.ts'
import { postgresDialect } from './postgres-dialect.ts'
import { PreparedClient } from './prepared-client.ts'
import type { Store } from './store.ts'
import { TYPE_PARSERS } from './type-parsers.ts'

/** Options for a PostgreSQL store reached through `pg`. */
export interface PostgresStoreOptions {
  url: string
  poolSize?: number
  /**
   * Told when PostgreSQL ends a connection that sat idle in the pool (a restart, a failover, an
   * administrator's `pg_terminate_backend`). The pool has already dropped it and the next query
   * opens another; without a listener, `pg` would throw it and stop the process.
   */
  onConnectionLost?: (error: Error) => void
}

/** A `pg` type table that applies Hearth's parsers and leaves the rest to pg's defaults. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    const parser = TYPE_PARSERS[oid]
    if (parser && format !== 'binary') return parser
    return format === 'binary' ? pg.types.getTypeParser(oid, 'binary') : pg.types.getTypeParser(oid, 'text')
  },
} as pg.CustomTypesConfig

/**
 * Opens a pooled PostgreSQL store; the URL's password is redacted from `location`. A URL with
 * several hosts (`postgres://h1:p1,h2:p2/db?target_session_attrs=read-write`) opens each
 * connection on the server that accepts writes (cluster-url.ts).
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const cluster = parseClusterUrl(options.url)
  const onCluster = choosesHost(cluster)
  const pool = new pg.Pool({
    connectionString: cluster.singleHostUrl,
    max: options.poolSize ?? 10,
    types,
    Client: onCluster ? clusterClient(cluster) : PreparedClient,
    // Statements go out without waiting for the answers before them (PipelinedPostgresDriver).
    pipeline: true,
    // Between the probe and the connection a failover may have demoted the server: checked again.
    ...(onCluster && { onConnect: (client: pg.Client) => refuseStandby(client, cluster) }),
  } as pg.PoolConfig)
  pool.on('error', (error) => options.onConnectionLost?.(error))
  // A connection lost while checked out (a failover, a restart) fails its statements, and the
  // pool drops it on release; without a listener of its own, `pg` would throw it and stop the process.
  pool.on('connect', (client) => client.on('error', () => {}))
  // Fail at start-up, not on the first request, when the server is unreachable.
  const client = await pool.connect()
  client.release()
  const db = new Kysely<Database>({ dialect: postgresDialect(() => new PipelinedPostgresDriver(pool)) })
  return {
    db,
    kind: 'postgres',
    location: redact(options.url),
    async close() {
      await db.destroy()
    },
  }
}

/**
 * A `PreparedClient` that opens on the server of `cluster` that accepts writes (or, for
 * `target_session_attrs=any`, the first that answers), and ends itself when a write is refused
 * as read-only (its server was demoted), so the pool opens the next one on the new primary.
 */
function clusterClient(cluster: ClusterUrl): typeof PreparedClient {
  return class ClusterClient extends PreparedClient {
    constructor(config?: string | pg.ClientConfig) {
      super(config)
      const query = this.query.bind(this) as (...args: unknown[]) => unknown
      this.query = ((...args: unknown[]) => {
        const answer = query(...args)
        if (!(answer instanceof Promise)) return answer
        return answer.catch((error: unknown) => {
          if ((error as { code?: string }).code === '25006') {
            forgetPrimary(cluster)
            this.end().catch(() => {})
          }
          throw error
        })
      }) as pg.Client['query']
    }

    /** pg's `connect()` opens its socket on `this.host` and `this.port` here, in both its forms. */
    _connect(callback: (error?: Error) => void): void {
      chooseHost(cluster).then((host) => {
        this.host = host.host
        this.port = host.port
        clientConnect.call(this, callback)
      }, callback)
    }
  }
}

/** pg.Client's own connect step (not in its types). */
const clientConnect = (
  pg.Client.prototype as unknown as { _connect: (callback: (error?: Error) => void) => void }
)._connect

/** Refuses a fresh connection that landed on a standby. */
async function refuseStandby(client: pg.Client, cluster: ClusterUrl): Promise<void> {
  if (cluster.targetSessionAttrs !== 'read-write') return
  const { rows } = await client.query<{ standby: boolean }>('select pg_is_in_recovery() as standby')
  if (rows[0]?.standby) {
    forgetPrimary(cluster)
    throw new StoreUnavailableError(
      `${client.host}:${client.port} is a standby; the primary is being chosen again.`,
    )
  }
}

/** Hides the password of a connection URL for logs; a URL with several hosts keeps them all. */
export function redact(url: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return 'postgres://(unparseable url)'
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/?#]*:)[^@/?#]*@/i, '$1***@')
}
