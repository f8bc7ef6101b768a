import {
  type ColumnMetadata,
  type DatabaseMetadataOptions,
  DEFAULT_MIGRATION_LOCK_TABLE,
  DEFAULT_MIGRATION_TABLE,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
  type TableMetadata,
  type TransactionSettings,
} from 'kysely'
import type { Database } from '../database.ts'

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
 * Kysely's catalog reader (its migrator asks it whether the migration tables exist), reading the
 * catalog by oid only. Kysely's own resolves each table again by its name for every column
 * (`pg_get_serial_sequence('schema.table', column)`), which fails with "relation does not exist"
 * when another session drops the table between the catalog snapshot and that lookup, and with
 * it a server's start on a database shared with anything that drops tables. Retrying it was not
 * enough: under a loop that creates and drops tables, five reads in a row failed (2026-11-25).
 * Here whether a column draws from a sequence is read from `pg_depend`, as
 * `pg_get_serial_sequence` itself does, in the same snapshot as the rest, so the read cannot fail
 * that way. The answer is the same as Kysely's.
 */
export class SteadyIntrospector extends PostgresIntrospector {
  readonly #db: Kysely<Database>

  constructor(db: Kysely<Database>) {
    super(db)
    this.#db = db
  }

  override async getTables(
    options: DatabaseMetadataOptions = { withInternalKyselyTables: false },
  ): Promise<TableMetadata[]> {
    const { rows } = await sql<CatalogColumn>`
      select a.attname as column, a.attnotnull as not_null, a.atthasdef as has_default,
        c.relname as table, c.relkind as table_type, ns.nspname as schema,
        typ.typname as type, dtns.nspname as type_schema,
        col_description(a.attrelid, a.attnum) as column_description,
        exists (
          select 1 from pg_catalog.pg_depend d
          join pg_catalog.pg_class s on s.oid = d.objid and s.relkind = 'S'
          where d.classid = 'pg_catalog.pg_class'::regclass
            and d.refclassid = 'pg_catalog.pg_class'::regclass
            and d.refobjid = c.oid and d.refobjsubid = a.attnum and d.deptype in ('a', 'i')
        ) as auto_incrementing
      from pg_catalog.pg_attribute a
      join pg_catalog.pg_class c on a.attrelid = c.oid
      join pg_catalog.pg_namespace ns on c.relnamespace = ns.oid
      join pg_catalog.pg_type typ on a.atttypid = typ.oid
      join pg_catalog.pg_namespace dtns on typ.typnamespace = dtns.oid
      where c.relkind in ('r', 'v', 'p')
        and ns.nspname !~ '^pg_' and ns.nspname != 'information_schema'
        and has_schema_privilege(ns.nspname, 'USAGE')
        and a.attnum >= 0 and not a.attisdropped
        ${options.withInternalKyselyTables ? sql`` : sql`and c.relname not in (${DEFAULT_MIGRATION_TABLE}, ${DEFAULT_MIGRATION_LOCK_TABLE})`}
      order by ns.nspname, c.relname, a.attnum`.execute(this.#db)
    const tables = new Map<
      string,
      { name: string; schema: string; isView: boolean; columns: ColumnMetadata[] }
    >()
    for (const column of rows) {
      const key = `${column.schema}.${column.table}`
      let table = tables.get(key)
      if (!table) {
        table = { name: column.table, schema: column.schema, isView: column.table_type === 'v', columns: [] }
        tables.set(key, table)
      }
      table.columns.push({
        name: column.column,
        dataType: column.type,
        dataTypeSchema: column.type_schema,
        isNullable: !column.not_null,
        hasDefaultValue: column.has_default,
        isAutoIncrementing: column.auto_incrementing,
        comment: column.column_description ?? undefined,
      })
    }
    return [...tables.values()]
  }
}

/** One column as the catalog query above reads it. */
interface CatalogColumn {
  column: string
  not_null: boolean
  has_default: boolean
  table: string
  table_type: string
  schema: string
  type: string
  type_schema: string
  column_description: string | null
  auto_incrementing: boolean
}

/** The statement that opens a transaction with these settings, as Kysely's own drivers write it. */
export function beginStatement(settings: TransactionSettings): string {
  if (!settings.isolationLevel && !settings.accessMode) return 'begin'
  return ['start transaction', settings.isolationLevel && `isolation level ${settings.isolationLevel}`]
    .concat(settings.accessMode ?? [])
    .filter(Boolean)
    .join(' ')
}
