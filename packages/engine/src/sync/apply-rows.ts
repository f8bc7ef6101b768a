import { CompiledQuery, sql, type Transaction } from 'kysely'
import type { RowChange } from '../changes/changes.ts'
import type { Database } from '../database.ts'
import { copyFromBlob } from '../store/copy-rows.ts'
import { executeDeferred } from '../store/deferred-writes.ts'

/** A row change as a replica applies it; the version is not needed to apply it. */
export type RowChangeInput = Pick<RowChange, 'table' | 'id' | 'op' | 'row'>

/** Applies row changes in order: upserts replace the whole row, deletes remove it by key. */
export async function applyChanges(
  tx: Transaction<Database>,
  householdId: string,
  changes: readonly RowChangeInput[],
): Promise<void> {
  if (changes.length === 0) return
  const wire = changes.map((c) => ({ table: c.table, id: c.id, op: c.op, row: c.row }))
  await sql`select hearth_sync_apply(${householdId}, ${JSON.stringify(wire)}::jsonb)`.execute(tx)
}

/** Upserts full row images into one table. */
export async function loadRows(
  tx: Transaction<Database>,
  table: string,
  rows: readonly Record<string, unknown>[],
): Promise<void> {
  if (rows.length === 0) return
  await sql`select hearth_sync_upsert(${table}, ${JSON.stringify(rows)}::jsonb)`.execute(tx)
}

/** Deletes every replicated row of a household, before a snapshot replaces them. */
export async function clearHousehold(tx: Transaction<Database>, householdId: string): Promise<void> {
  await sql`select hearth_sync_clear(${householdId})`.execute(tx)
}

/**
 * The derived sums a snapshot's load adds up once at the end rather than page by page: the
 * insert trigger each table's pages would fire (0030's `forecast_days`, `enable always` so it
 * fires for server rows too), and the function that recomputes a household's sums (0047). Paged,
 * the triggers cost a 50,000-row first sync seconds on a loaded machine (bench:sync).
 */
const SNAPSHOT_SUMS = {
  triggers: [
    ['transactions', 'transactions_forecast_days_insert'],
    ['transaction_splits', 'transaction_splits_forecast_days_insert'],
  ],
  rebuild: 'hearth_forecast_days_rebuild',
} as const

/**
 * Pauses the derived sums' insert triggers for a snapshot's load, in its transaction (a rollback
 * brings them back); `resumeDerivedSums` turns them on again and adds the household up once.
 */
export async function pauseDerivedSums(tx: Transaction<Database>): Promise<void> {
  for (const [table, trigger] of SNAPSHOT_SUMS.triggers)
    await sql`alter table ${sql.table(table)} disable trigger ${sql.id(trigger)}`.execute(tx)
}

/** Turns the derived sums' triggers back on (`enable always`, as they were) and recomputes the household's sums. */
export async function resumeDerivedSums(tx: Transaction<Database>, householdId: string): Promise<void> {
  for (const [table, trigger] of SNAPSHOT_SUMS.triggers)
    await sql`alter table ${sql.table(table)} enable always trigger ${sql.id(trigger)}`.execute(tx)
  await sql`select ${sql.raw(SNAPSHOT_SUMS.rebuild)}(${householdId})`.execute(tx)
}

/** Restores every row pending mutations wrote to its image from before them; returns how many. */
export async function undoPending(tx: Transaction<Database>): Promise<number> {
  const { rows } = await sql<{ n: number }>`select hearth_sync_undo() as n`.execute(tx)
  return rows[0]?.n ?? 0
}

/** A table as a replica writes it: its columns and primary key, and the statements built on them. */
interface TableShape {
  key: string[]
  upsert: string
  /** The upsert without its conflict clause, for a snapshot's rows on a cleared household. */
  insert: string
  /** The same as `copy … from '/dev/blob'`, and how each column is written in its CSV. */
  copy: string
  columns: { name: string; form: CsvForm }[]
  deleteKeys: string
}

/** How a column's JSON value is written as CSV text: as it is, as JSON, or as an array literal. */
type CsvForm = 'text' | 'json' | 'array'

/** A row change reduced to the row's final state: its image, or null when it is gone. */
interface FinalRow {
  table: string
  id: string
  row: Record<string, unknown> | null
}

const UNIQUE_VIOLATIONS = new Set(['23505', '23P01'])

/**
 * Applies server rows on a device with statements built once per table in JS, rather than
 * through the `hearth_sync_*` functions, which look up the table's key and columns in the catalog
 * and plan a dynamic statement on every call (about 3 ms for a one-row delta on PGlite, against
 * 0.6 ms for the statement itself). One writer per store: it caches each table's shape.
 */
export class RowWriter {
  private readonly shapes = new Map<string, Promise<TableShape>>()

  /**
   * `copy`: load snapshot pages with COPY (PGlite only, through its `/dev/blob` input; a device's
   * replica): a 2,000-row page of transactions in 28-35 ms instead of 49-55 (measured 2026-11-25).
   */
  constructor(private readonly options: { copy?: boolean } = {}) {}

  /**
   * Applies row changes in the change log's shape: each row's last change wins, deletes then
   * upserts, a statement per table. If that trips a unique index through an intermediate state,
   * the changes are applied one by one in their exact order instead.
   */
  async apply(
    tx: Transaction<Database>,
    householdId: string,
    changes: readonly RowChangeInput[],
  ): Promise<void> {
    if (changes.length === 0) return
    const finals = new Map<string, FinalRow>()
    for (const c of changes) {
      const k = `${c.table}\u0000${c.id}`
      finals.delete(k)
      finals.set(k, { table: c.table, id: c.id, row: c.op === 'delete' ? null : c.row })
    }
    // A single change cannot pass through an intermediate state: no savepoint needed.
    if (changes.length === 1) return this.applyFinals(tx, householdId, [...finals.values()])
    await sql`savepoint hearth_apply`.execute(tx)
    try {
      await this.applyFinals(tx, householdId, [...finals.values()])
      await sql`release savepoint hearth_apply`.execute(tx)
    } catch (error) {
      if (!UNIQUE_VIOLATIONS.has((error as { code?: string }).code ?? '')) throw error
      await sql`rollback to savepoint hearth_apply`.execute(tx)
      const wire = changes.map((c) => ({ table: c.table, id: c.id, op: c.op, row: c.row }))
      await sql`select hearth_sync_apply_ordered(${householdId}, ${JSON.stringify(wire)}::jsonb)`.execute(tx)
    }
  }

  /**
   * Inserts full row images into one table, as a snapshot page, once `clearHousehold` has
   * emptied the household: no row can conflict, so there is no conflict clause to check, and a
   * 2,000-row page of transactions loads in 49-55 ms instead of 62-77 (measured 2026-11-25).
   */
  async load(
    tx: Transaction<Database>,
    table: string,
    rows: readonly Record<string, unknown>[],
  ): Promise<void> {
    if (rows.length === 0) return
    const shape = await this.shape(tx, table)
    if (this.options.copy) await copyFromBlob(tx, shape.copy, toCsv(rows, shape.columns))
    else await this.run(tx, shape.insert, [JSON.stringify(rows)])
  }

  private async applyFinals(
    tx: Transaction<Database>,
    householdId: string,
    finals: FinalRow[],
  ): Promise<void> {
    const tables = [...new Set(finals.map((f) => f.table))]
    for (const table of tables) {
      const shape = await this.shape(tx, table)
      const mine = finals.filter((f) => f.table === table)
      const gone = mine.filter((f) => f.row === null).map((f) => f.id)
      const rows = mine.flatMap((f) => (f.row === null ? [] : [f.row]))
      // Nothing reads their answers: held for the next call into PGlite (the commit, for a
      // rebase with nothing pending, so a one-row delta costs one call). A failure surfaces at
      // the next statement awaited, which `apply`'s savepoint release is.
      if (gone.length > 0)
        await this.defer(tx, shape.deleteKeys, shape.key.length === 1 ? [gone] : [householdId, gone])
      if (rows.length > 0) await this.defer(tx, shape.upsert, [JSON.stringify(rows)])
    }
  }

  private async defer(tx: Transaction<Database>, statement: string, parameters: unknown[]): Promise<void> {
    await executeDeferred(tx, { compile: () => CompiledQuery.raw(statement, parameters) })
  }

  private async run(tx: Transaction<Database>, statement: string, parameters: unknown[]): Promise<void> {
    await tx.executeQuery(CompiledQuery.raw(statement, parameters))
  }

  /**
   * Drops a table's indexes that back no constraint (a primary key or unique constraint stays,
   * for the upserts) and answers the statements that build them again: a bulk load then writes
   * only the table, and each index is built once, sorted, instead of updated row by row.
   */
  async dropIndexes(tx: Transaction<Database>, table: string): Promise<string[]> {
    const { rows } = await sql<{ name: string; def: string }>`
      select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as def
      from pg_index i
      where i.indrelid = ${table}::regclass
        and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)`.execute(tx)
    for (const { name } of rows) await sql`drop index ${sql.raw(name)}`.execute(tx)
    return rows.map((r) => r.def)
  }

  /** A table's primary-key columns: `[household_id, <row key>]`, or `[id]` for households. */
  async key(tx: Transaction<Database>, table: string): Promise<string[]> {
    return (await this.shape(tx, table)).key
  }

  private shape(tx: Transaction<Database>, table: string): Promise<TableShape> {
    let shape = this.shapes.get(table)
    if (!shape) {
      shape = readShape(tx, table)
      this.shapes.set(table, shape)
      shape.catch(() => this.shapes.delete(table))
    }
    return shape
  }
}

async function readShape(tx: Transaction<Database>, table: string): Promise<TableShape> {
  const { rows } = await sql<{ name: string; key: string[]; category: string; type: string }>`
    select a.attname::text as name, hearth_sync_key(${table}) as key,
      t.typcategory as category, t.typname::text as type
    from pg_attribute a
    join pg_type t on t.oid = a.atttypid
    where a.attrelid = ${table}::regclass and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
    order by a.attnum`.execute(tx)
  const key = rows[0]?.key ?? []
  const q = (name: string) => `"${name.replaceAll('"', '""')}"`
  const columns = rows.map((r) => q(r.name)).join(', ')
  const sets = rows.filter((r) => !key.includes(r.name)).map((r) => `${q(r.name)} = excluded.${q(r.name)}`)
  const insert = `insert into ${q(table)} (${columns}) select ${columns} from jsonb_populate_recordset(null::${q(table)}, $1::jsonb)`
  const upsert = `${insert} on conflict (${key.map(q).join(', ')}) do ${sets.length === 0 ? 'nothing' : `update set ${sets.join(', ')}`}`
  let deleteKeys: string
  if (key.length === 1) deleteKeys = `delete from ${q(table)} where ${q(key[0]!)} = any ($1::text[])`
  else if (key.length === 2 && key[0] === 'household_id')
    deleteKeys = `delete from ${q(table)} where household_id = $1 and ${q(key[1]!)} = any ($2::text[])`
  else throw new Error(`Table ${table} has a key sync cannot address: ${key.join(', ')}`)
  const copy = `copy ${q(table)} (${columns}) from '/dev/blob' with (format csv)`
  const forms = rows.map((r) => ({
    name: r.name,
    form: (r.category === 'A'
      ? 'array'
      : r.type === 'json' || r.type === 'jsonb'
        ? 'json'
        : 'text') as CsvForm,
  }))
  return { key, upsert, insert, copy, columns: forms, deleteKeys }
}

/**
 * Rows as COPY's CSV: every value quoted (so an empty string stays one), a missing one empty
 * and unquoted (NULL), JSON columns as JSON text, arrays as PostgreSQL array literals.
 */
function toCsv(rows: readonly Record<string, unknown>[], columns: { name: string; form: CsvForm }[]): string {
  let csv = ''
  for (const row of rows) {
    let line = ''
    for (let i = 0; i < columns.length; i++) {
      const { name, form } = columns[i]!
      const value = row[name]
      if (i > 0) line += ','
      if (value === null || value === undefined) continue
      const text =
        form === 'json' ? JSON.stringify(value) : form === 'array' ? arrayLiteral(value) : scalarText(value)
      line += `"${text.replaceAll('"', '""')}"`
    }
    csv += `${line}\n`
  }
  return csv
}

function scalarText(value: unknown): string {
  return typeof value === 'object' ? JSON.stringify(value) : String(value)
}

/** A JSON array as a PostgreSQL array literal: elements quoted, `"` and `\` escaped. */
function arrayLiteral(value: unknown): string {
  if (!Array.isArray(value)) return scalarText(value)
  const items = value.map((item) =>
    item === null
      ? 'NULL'
      : Array.isArray(item)
        ? arrayLiteral(item)
        : `"${scalarText(item).replace(/["\\]/g, (c) => `\\${c}`)}"`,
  )
  return `{${items.join(',')}}`
}
