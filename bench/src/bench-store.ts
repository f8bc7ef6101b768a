import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { migrateToLatest, type Store } from '@hearth/engine'
import { openPostgresStore, openStore } from '@hearth/engine/node'
import pg from 'pg'

/** Where benchmarks keep their seeded stores, so a seed is built once and measured many times. */
export const PGLITE_DIR = new URL('../../.bench-data/pglite', import.meta.url).pathname
export const POSTGRES_URL =
  process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/hearth_bench'

export type StoreName = 'pglite' | 'postgres'

/**
 * `--store pglite|postgres|both` (default both), plus `--reseed`, and `--transactions N` for a
 * bench whose household's size can change (it is undefined when not given). A bench that measures
 * more than the two stores names its own further choices in `extra` (such as `device`).
 */
export function benchArgs<E extends string = never>(
  extra: readonly E[] = [],
): { stores: (StoreName | E)[]; reseed: boolean; transactions: number | undefined } {
  const { values } = parseArgs({
    options: {
      store: { type: 'string', default: 'both' },
      reseed: { type: 'boolean', default: false },
      transactions: { type: 'string' },
    },
  })
  const transactions = values.transactions === undefined ? undefined : Number(values.transactions)
  if (transactions !== undefined && !(Number.isInteger(transactions) && transactions >= 2_000))
    throw new Error('--transactions must be a whole number of at least 2000')
  const known: readonly string[] = ['pglite', 'postgres', ...extra]
  const stores = (values.store === 'both' ? ['pglite', 'postgres'] : [values.store]) as (StoreName | E)[]
  for (const s of stores)
    if (!known.includes(s)) throw new Error(`--store must be ${[...known, 'both'].join(', ')}`)
  return { stores, reseed: values.reseed ?? false, transactions }
}

/** Opens (creating if needed) and migrates the bench store of that name. */
export async function openBenchStore(name: StoreName): Promise<Store> {
  const store = name === 'pglite' ? await openStore({ dataDir: PGLITE_DIR }) : await openPostgres()
  await migrateToLatest(store.db)
  return store
}

async function openPostgres(): Promise<Store> {
  const database = new URL(POSTGRES_URL).pathname.slice(1)
  await withAdmin(async (admin) => {
    const exists = await admin.query('select 1 from pg_database where datname = $1', [database])
    if (exists.rowCount === 0) await admin.query(`create database "${database.replaceAll('"', '')}"`)
  })
  return openPostgresStore({ url: POSTGRES_URL, poolSize: 4 })
}

/**
 * A migrated store of its own for one run of a benchmark that seeds what it measures: a scratch
 * PostgreSQL database or a temporary PGlite folder (durable, as a server's or a device's folder is,
 * unless `durable: false`). `serverEnv` points a server process at it: a PGlite folder is one
 * process's, so close `store` before that server starts. `drop()` removes it once closed.
 */
export async function openScratchStore(
  name: StoreName,
  label: string,
  options: { durable?: boolean } = {},
): Promise<{ store: Store; serverEnv: Record<string, string>; drop: () => Promise<void> }> {
  if (name === 'postgres') {
    const scratch = await scratchPostgres(`hearth_bench_${label}`)
    const store = await openPostgresStore({ url: scratch.url, poolSize: 4 })
    await migrateToLatest(store.db)
    return { store, serverEnv: { DATABASE_URL: scratch.url }, drop: scratch.drop }
  }
  const dir = mkdtempSync(join(tmpdir(), `hearth-bench-${label}-`))
  const store = await openStore({ dataDir: dir, durable: options.durable })
  await migrateToLatest(store.db)
  return {
    store,
    serverEnv: { HEARTH_DATA_DIR: dir },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  }
}

/**
 * A database of its own on the bench server, for a benchmark that seeds what it measures and
 * should leave nothing behind: `drop()` removes it.
 */
export async function scratchPostgres(prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const database = `${prefix}_${Date.now()}_${process.pid}`
  await withAdmin((admin) => admin.query(`create database "${database}"`))
  const url = Object.assign(new URL(POSTGRES_URL), { pathname: `/${database}` }).toString()
  const drop = async () => {
    await withAdmin((admin) => admin.query(`drop database if exists "${database}" with (force)`))
  }
  return { url, drop }
}

async function withAdmin<T>(work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({
    connectionString: Object.assign(new URL(POSTGRES_URL), { pathname: '/postgres' }).toString(),
  })
  await admin.connect()
  try {
    return await work(admin)
  } finally {
    await admin.end()
  }
}
