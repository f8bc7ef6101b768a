import { type Kysely, type RawBuilder, sql, type Transaction } from 'kysely'
import type { Database } from '../database.ts'
import { canReadRow, canReadTable, readRule, type SyncReader } from './read-policy.ts'
import { syncedTables, syncKey } from './synced-tables.ts'

/** One table's digest: the rows a reader may hold, and the sum of their row hashes mod 2^64. */
export interface TableDigest {
  table: string
  rows: number
  /** Hexadecimal, without leading zeros. */
  hash: string
}

/** A household's digest for one reader, and the version its clock was at when it was read. */
export interface HouseholdDigest {
  version: number
  tables: TableDigest[]
}

/** How a digest is read. */
export interface DigestOptions {
  /**
   * Read each table in pages of this many rows, one statement each, rather than whole: other
   * statements on the same connection (a device's queries) wait for a page, not for the whole
   * digest. The pages are not one snapshot: the caller makes sure nothing wrote meanwhile.
   */
  pageRows?: number
}

const MOD = 2n ** 64n

/** Rows per statement of a device replica's digest: an app's query waits for one page at most. */
export const DEVICE_DIGEST_PAGE_ROWS = 5000

/**
 * A digest of every replicated row of a household that `reader` may hold, table by table: the
 * row count and the sum (mod 2^64) of each row's 64-bit hash (`hash_record_extended`, which
 * hashes each column's stored value with its type's hash function, so no text is rendered and no
 * session setting such as the time zone matters). Order does not matter, so the server and a
 * device compute the same digest from the same rows whatever their physical order; a row
 * missing, extra or different changes its table's digest (a sum of hashes can collide only by
 * chance, about one in 2^64). The same function runs on the server's store and on a device's
 * replica: whole, in one REPEATABLE READ transaction (or the caller's), or in pages
 * (`pageRows`). Tables with no rows are left out.
 */
export async function readDigest(
  db: Kysely<Database>,
  householdId: string,
  reader: SyncReader,
  options: DigestOptions = {},
): Promise<HouseholdDigest> {
  if (options.pageRows || db.isTransaction) return digestIn(db, householdId, reader, options.pageRows)
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute((tx) => digestIn(tx, householdId, reader))
}

async function digestIn(
  db: Kysely<Database> | Transaction<Database>,
  householdId: string,
  reader: SyncReader,
  pageRows?: number,
): Promise<HouseholdDigest> {
  const clock = await db
    .selectFrom('household_clock')
    .select('version')
    .where('household_id', '=', householdId)
    .executeTakeFirst()
  const tables: TableDigest[] = []
  for (const table of await syncedTables(db)) {
    if (!canReadTable(table, reader)) continue
    const { key, owner: ownerColumn } = await syncKey(db, table)
    const owner = sql.ref(`t.${ownerColumn}`)
    const rule = readRule(table)
    let rows = 0
    let sum = 0n
    if (rule && 'rowRule' in rule) {
      // A row rule is code: its rows are judged one by one, as a snapshot judges them.
      const { rows: hashed } = await sql<{ h: string; row: Record<string, unknown> }>`
        select hash_record_extended(t, 0)::text as h, to_jsonb(t) as row
        from ${sql.table(table)} t where ${owner} = ${householdId}`.execute(db)
      for (const r of hashed) {
        if (!canReadRow(table, r.row, reader)) continue
        rows++
        sum += BigInt(r.h)
      }
    } else if (pageRows) {
      // Pages by the row's key within the household: the primary key after household_id (every
      // synced table's is one column today; a tuple keeps it right for a longer key).
      const cols = (key.length === 1 ? key : key.slice(1)).map((c) => sql.ref(`t.${c}`))
      const tuple = sql`(${sql.join(cols)})`
      let after: unknown[] | null = null
      while (true) {
        const from: RawBuilder<unknown> = after === null ? sql`` : sql`and ${tuple} > (${sql.join(after)})`
        const { rows: edge } = await sql<Record<string, unknown>>`
          select ${sql.join(cols)} from ${sql.table(table)} t where ${owner} = ${householdId} ${from}
          order by ${sql.join(cols)} offset ${pageRows - 1} limit 1`.execute(db)
        const upTo: unknown[] | null = edge[0] ? Object.values(edge[0]) : null
        const { rows: page } = await sql<{ n: string | number; s: string | null }>`
          select count(*) as n, sum(hash_record_extended(t, 0))::text as s
          from ${sql.table(table)} t where ${owner} = ${householdId} ${from}
          ${upTo === null ? sql`` : sql`and ${tuple} <= (${sql.join(upTo)})`}`.execute(db)
        rows += Number(page[0]?.n ?? 0)
        sum += BigInt(page[0]?.s ?? '0')
        if (upTo === null) break
        after = upTo
      }
    } else {
      const { rows: totals } = await sql<{ n: string | number; s: string | null }>`
        select count(*) as n, sum(hash_record_extended(t, 0))::text as s
        from ${sql.table(table)} t where ${owner} = ${householdId}`.execute(db)
      rows = Number(totals[0]?.n ?? 0)
      sum = BigInt(totals[0]?.s ?? '0')
    }
    if (rows === 0) continue
    tables.push({ table, rows, hash: (((sum % MOD) + MOD) % MOD).toString(16) })
  }
  return { version: clock?.version ?? 0, tables }
}
