import { Kysely } from 'kysely'
import pg from 'pg'
import type { Database } from '../database.ts'
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

/** Opens a pooled PostgreSQL store; the URL's password is redacted from `location`. */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    types,
    Client: PreparedClient,
    // Statements go out without waiting for the answers before them (PipelinedPostgresDriver).
    pipeline: true,
  })
  pool.on('error', (error) => options.onConnectionLost?.(error))
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

/** Hides the password of a connection URL for logs. */
export function redact(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return 'postgres://(unparseable url)'
  }
}
