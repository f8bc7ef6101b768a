import {
  type DatabaseMetadataOptions,
  type Dialect,
  type Driver,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type TableMetadata,
  type TransactionSettings,
} from 'kysely'

/** Kysely's PostgreSQL dialect around a driver of ours: both stores speak PostgreSQL. */
export function postgresDialect(createDriver: () => Driver): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver,
    createIntrospector: (db) => new SteadyIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  }
}

/**
 * Kysely's catalog reader (its migrator asks it whether the migration tables exist), read again
 * when a table is dropped while it reads: it resolves each table and column by name after
 * listing them, so a table another session dropped in between failed the read ("relation does
 * not exist", "column does not exist"), and with it a server's start on a database shared with
 * anything that drops tables.
 */
export class SteadyIntrospector extends PostgresIntrospector {
  override async getTables(options?: DatabaseMetadataOptions): Promise<TableMetadata[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await super.getTables(options)
      } catch (error) {
        if (!DROPPED_MEANWHILE.has((error as { code?: string }).code ?? '') || attempt >= 5) throw error
      }
    }
  }
}

/** Undefined table, undefined column: what resolving a dropped table's name and columns answers. */
const DROPPED_MEANWHILE = new Set(['42P01', '42703'])

/** The statement that opens a transaction with these settings, as Kysely's own drivers write it. */
export function beginStatement(settings: TransactionSettings): string {
  if (!settings.isolationLevel && !settings.accessMode) return 'begin'
  return ['start transaction', settings.isolationLevel && `isolation level ${settings.isolationLevel}`]
    .concat(settings.accessMode ?? [])
    .filter(Boolean)
    .join(' ')
}
