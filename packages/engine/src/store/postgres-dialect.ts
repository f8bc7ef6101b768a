import {
  type Dialect,
  type Driver,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type TransactionSettings,
} from 'kysely'

/** Kysely's PostgreSQL dialect around a driver of ours: both stores speak PostgreSQL. */
export function postgresDialect(createDriver: () => Driver): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver,
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  }
}

/** The statement that opens a transaction with these settings, as Kysely's own drivers write it. */
export function beginStatement(settings: TransactionSettings): string {
  if (!settings.isolationLevel && !settings.accessMode) return 'begin'
  return ['start transaction', settings.isolationLevel && `isolation level ${settings.isolationLevel}`]
    .concat(settings.accessMode ?? [])
    .filter(Boolean)
    .join(' ')
}
