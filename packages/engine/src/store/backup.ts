import { closeSync, createReadStream, fsyncSync, openSync, renameSync, writeSync } from 'node:fs'
import { basename, dirname } from 'node:path'
import { createInterface } from 'node:readline'
import { sql } from 'kysely'
import type { Store } from './store.ts'

/** Kysely's own bookkeeping: a restore migrates the new store itself and keeps these. */
const MIGRATION_TABLES = new Set(['kysely_migration', 'kysely_migration_lock'])
/** Tables that cache what other tables say, kept up to date by triggers (migrations 0012, 0051). */
const CACHES = new Set(['budget_closings', 'report_closings'])
/**
 * Tables triggers rebuild, in replica mode too, from the rows a restore writes (migration 0030):
 * never dumped, since restoring them as well would count every row twice. The category model's
 * keys (0048) are each store's own: the restore's truncate and inserts replace them.
 */
const DERIVED = new Set(['forecast_days', 'suggestion_generations'])
const FORMAT = 'hearth-backup'
const INSERT_BATCH = 500

/** What a backup file says about itself on its first line. */
export interface BackupHeader {
  format: typeof FORMAT
  formatVersion: 1
  createdAt: string
  store: Store['kind']
  /** The migrations the store had applied: a restore needs exactly these. */
  migrations: string[]
  /** Each household's sync version at the snapshot. */
  versions: Record<string, number>
  tables: { name: string; rows: number }[]
}

/** A backup file that cannot be restored, or a store that cannot take it. */
export class BackupError extends Error {
  override name = 'BackupError'
}

interface TableDump {
  name: string
  columns: string[]
  rows: (string | null)[][]
}

/**
 * Writes a consistent snapshot of every table to `path`, synced, and answers its header. The
 * rows are read in one repeatable-read transaction (on PostgreSQL writers never wait; on the
 * embedded store, whose one session serves everyone, writers wait while the rows are read,
 * about a second per 100k rows here) and written to the file after it ends: a temporary file,
 * fsynced, renamed into place, its folder fsynced.
 */
export async function writeBackup(store: Store, path: string): Promise<BackupHeader> {
  const { dumps, migrations, versions } = await store.db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(async (tx) => {
      // Instants as UTC text, whatever the server's zone: one backup reads the same everywhere.
      await sql`set local timezone to 'UTC'`.execute(tx)
      const dumps: TableDump[] = []
      for (const { name, columns } of await tablesOf(tx)) {
        const list = sql.join(columns.map((c) => sql`${sql.ref(c.name)}::text`))
        const { rows } = await sql<{ rows: string }>`
          select coalesce(json_agg(array[${list}]), '[]')::text as rows from ${sql.table(name)}`.execute(tx)
        dumps.push({ name, columns: columns.map((c) => c.name), rows: JSON.parse(rows[0]!.rows) })
      }
      const migrations = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
        tx,
      )
      const versions = await sql<{ household_id: string; version: string }>`
        select household_id, version::text from household_clock`.execute(tx)
      return {
        dumps,
        migrations: migrations.rows.map((r) => r.name),
        versions: Object.fromEntries(versions.rows.map((r) => [r.household_id, Number(r.version)])),
      }
    })
  const header: BackupHeader = {
    format: FORMAT,
    formatVersion: 1,
    createdAt: new Date().toISOString(),
    store: store.kind,
    migrations,
    versions,
    tables: dumps.map((d) => ({ name: d.name, rows: d.rows.length })),
  }
  const temporary = `${dirname(path)}/.${basename(path)}.partial`
  const fd = openSync(temporary, 'w', 0o600)
  try {
    writeSync(fd, `${JSON.stringify(header)}\n`)
    for (const dump of dumps) {
      writeSync(fd, `${JSON.stringify({ table: dump.name, columns: dump.columns })}\n`)
      for (let i = 0; i < dump.rows.length; i += 1000) {
        writeSync(
          fd,
          `${dump.rows
            .slice(i, i + 1000)
            .map((r) => JSON.stringify(r))
            .join('\n')}\n`,
        )
      }
    }
    writeSync(fd, `${JSON.stringify({ end: true })}\n`)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(temporary, path)
  const dir = openSync(dirname(path), 'r')
  try {
    fsyncSync(dir)
  } finally {
    closeSync(dir)
  }
  return header
}

/**
 * Fills a new, migrated store from a backup file in one transaction, with triggers and foreign
 * keys held off while the rows go in (they were checked when the rows were first written), then
 * moves every sequence past the rows it numbered. Refuses a store that holds any user, and a
 * backup taken at other migrations than this code's.
 */
export async function restoreBackup(store: Store, path: string): Promise<BackupHeader> {
  const lines = createInterface({
    input: createReadStream(path, 'utf8'),
    crlfDelay: Number.POSITIVE_INFINITY,
  })
  const iterator = lines[Symbol.asyncIterator]()
  const first = await iterator.next()
  const header = first.done ? null : (JSON.parse(first.value) as BackupHeader)
  if (header?.format !== FORMAT || header.formatVersion !== 1) {
    throw new BackupError(`${path} is not a Hearth backup.`)
  }
  const applied = (
    await sql<{ name: string }>`select name from kysely_migration order by name`.execute(store.db)
  ).rows
  const here = applied.map((r) => r.name)
  if (here.join(',') !== header.migrations.join(',')) {
    throw new BackupError(
      `The backup was taken at ${header.migrations.length} migrations (last ${header.migrations.at(-1)}); this Hearth has ${here.length} (last ${here.at(-1)}). Restore it with the same version of Hearth.`,
    )
  }
  const users = await store.db.selectFrom('users').select('id').limit(1).execute()
  if (users.length > 0) {
    throw new BackupError('A restore builds a new store: point it at a new folder or an empty database.')
  }
  await store.db.transaction().execute(async (tx) => {
    await sql`set local session_replication_role = replica`.execute(tx)
    const tables = await tablesOf(tx)
    if (tables.length > 0) {
      await sql`truncate ${sql.join(tables.map((t) => sql.table(t.name)))}`.execute(tx)
    }
    const types = new Map(tables.map((t) => [t.name, new Map(t.columns.map((c) => [c.name, c.type]))]))
    let table: { name: string; columns: string[]; types: string[] } | null = null
    let batch: (string | null)[][] = []
    const flush = async () => {
      if (!table || batch.length === 0) return
      const { name, columns, types } = table
      // Each value goes as text and is cast by the server, as the dump wrote it with ::text.
      const values = batch.map(
        (row) => sql`(${sql.join(row.map((v, i) => sql`cast(${v}::text as ${sql.raw(types[i]!)})`))})`,
      )
      // A column `generated always as identity` (note_updates.seq) takes the backup's numbers
      // only when told to; the sequences move past them below.
      await sql`insert into ${sql.table(name)} (${sql.join(columns.map((c) => sql.ref(c)))})
        overriding system value values ${sql.join(values)}`.execute(tx)
      batch = []
    }
    let ended = false
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      const line = JSON.parse(next.value) as unknown
      if (Array.isArray(line)) {
        batch.push(line as (string | null)[])
        if (batch.length >= INSERT_BATCH) await flush()
        continue
      }
      await flush()
      const marker = line as { table?: string; columns?: string[]; end?: boolean }
      if (marker.end) {
        ended = true
        continue
      }
      const known = types.get(marker.table!)
      const columns = marker.columns!
      const missing = columns.filter((c) => !known?.has(c))
      if (!known || missing.length > 0) {
        throw new BackupError(
          `The backup's table ${marker.table} (${missing.join(', ')}) is not in this schema.`,
        )
      }
      table = { name: marker.table!, columns, types: columns.map((c) => known.get(c)!) }
    }
    if (!ended) throw new BackupError(`${path} ends early: the file is incomplete.`)
    for (const { name, columns } of tables) {
      for (const { name: column, sequence } of columns) {
        if (!sequence) continue
        await sql`select setval(${sequence}, coalesce((select max(${sql.ref(column)}) from ${sql.table(name)}), 0) + 1, false)`.execute(
          tx,
        )
      }
    }
  })
  return header
}

interface Column {
  name: string
  /** As `format_type` spells it, to cast text back. */
  type: string
  /** The sequence that numbers it (a `bigserial` or an identity column), if any. */
  sequence: string | null
}

/** Every table of the schema with its stored (not generated) columns, in a stable order. */
async function tablesOf(db: Store['db']): Promise<{ name: string; columns: Column[] }[]> {
  const { rows } = await sql<{
    table_name: string
    column_name: string
    type: string
    sequence: string | null
  }>`
    select c.relname as table_name, a.attname as column_name,
           format_type(a.atttypid, a.atttypmod) as type,
           pg_get_serial_sequence(quote_ident(c.relname), a.attname) as sequence
      from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
      join pg_attribute a on a.attrelid = c.oid
     where n.nspname = current_schema() and c.relkind = 'r'
       and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
     order by c.relname, a.attnum`.execute(db)
  const tables = new Map<string, Column[]>()
  for (const row of rows) {
    if (MIGRATION_TABLES.has(row.table_name) || DERIVED.has(row.table_name)) continue
    const columns = tables.get(row.table_name) ?? []
    columns.push({ name: row.column_name, type: row.type, sequence: row.sequence })
    tables.set(row.table_name, columns)
  }
  // Caches go last: their invalidation triggers fire in replica mode too (`enable always`), so
  // rows restored into the tables they are computed from would delete cache rows restored before.
  const ordered = [...tables].sort(([a], [b]) => Number(CACHES.has(a)) - Number(CACHES.has(b)))
  return ordered.map(([name, columns]) => ({ name, columns }))
}
