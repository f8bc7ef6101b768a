import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  type HouseholdContext,
  migrateToLatest,
  openPGliteStore,
  operations,
  runMutation,
  SCOPES,
  type Store,
} from '@hearth/engine'
import { openPostgresStore } from '@hearth/engine/node'
import { sql } from 'kysely'
import { ulid } from 'ulidx'
import { databaseName, onServer, quoteName, withDatabase } from './databases.ts'
import { BASE_DATABASE_URL, TEST_DATABASE_URL, templateDir } from './variant.ts'

let shared: Promise<Store> | null = null

/**
 * The schema where tests create the raw tables they need (probes, churn). Tests that list the
 * application's tables read `current_schema()`, so a neighbouring file's table never shows there.
 */
export const SCRATCH_SCHEMA = 'scratch'

/** A fresh table name in the scratch schema, bare and qualified (`scratch.probe_01j…`). */
export function scratchTable(prefix: string): { name: string; qualified: string } {
  const name = `${prefix}_${ulid().toLowerCase()}`
  return { name, qualified: `${SCRATCH_SCHEMA}.${name}` }
}

/** Migrates a test store and gives it the scratch schema: every way a test store is made. */
export async function prepareTestStore(db: Store['db']): Promise<void> {
  await migrateToLatest(db)
  await sql`create schema if not exists ${sql.id(SCRATCH_SCHEMA)}`.execute(db)
}

/**
 * The migrated store this worker shares across its test files. Tests isolate themselves by
 * creating their own household, never by resetting the database.
 */
export function sharedStore(): Promise<Store> {
  shared ??= openTestStore()
  return shared
}

async function openTestStore(): Promise<Store> {
  if (TEST_DATABASE_URL) return openPostgresStore({ url: TEST_DATABASE_URL, poolSize: 5 })
  const dir = mkdtempSync(join(tmpdir(), 'hearth-test-worker-'))
  cpSync(templateDir(), dir, { recursive: true })
  const store = await openPGliteStore({
    dataDir: dir,
    onClose: () => rmSync(dir, { recursive: true, force: true }),
  })
  await prepareTestStore(store.db)
  return store
}

/** A fresh user who owns a fresh household, with every scope: the usual starting point of a test. */
export async function newHousehold(
  store: Store,
  options: { name?: string; baseCurrency?: string; timeZone?: string } = {},
): Promise<HouseholdContext> {
  const userId = ulid()
  const householdId = ulid()
  const now = new Date()
  const actor = { userId, scopes: [...SCOPES], now }
  await runMutation(store.db, operations.users.create, { id: userId, name: 'Test Owner' }, actor)
  await runMutation(
    store.db,
    operations.households.create,
    { id: householdId, name: options.name ?? 'Test Household', ...options },
    { ...actor, householdId, role: 'owner' },
  )
  return { ...actor, householdId, role: 'owner' }
}

/**
 * A data folder for a server or CLI under test, on either store: a copy of the run's migrated
 * template (skipping PGlite's slow first initialisation).
 */
export function tempDataDir(cleanup: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-data-'))
  cleanup.push(dir)
  cpSync(templateDir(), dir, { recursive: true })
  return dir
}

/** Where a store of its own lives: a database on PostgreSQL, a folder on PGlite. */
export interface IsolatedDatabase {
  databaseUrl?: string
  dataDir?: string
  /** Removes the database or the folder; close every store on it first. */
  drop(): Promise<void>
}

/**
 * A migrated store of its own, holding no rows: on PostgreSQL a copy of the run's migrated
 * database (`create database … template`, a file copy, where migrating a new one took seconds), on
 * PGlite a copy of the template folder. For a test that must be alone on its store.
 */
export async function isolatedDatabase(): Promise<IsolatedDatabase> {
  if (BASE_DATABASE_URL) {
    const name = `hearth_iso_${ulid().toLowerCase()}`
    await onServer(BASE_DATABASE_URL, [
      `create database ${quoteName(name)} template ${quoteName(databaseName(BASE_DATABASE_URL))}`,
    ])
    return {
      databaseUrl: withDatabase(BASE_DATABASE_URL, name),
      drop: () => onServer(BASE_DATABASE_URL!, [`drop database if exists ${quoteName(name)} with (force)`]),
    }
  }
  // Removed by `drop`, not by a caller's list.
  const dataDir = tempDataDir([])
  return {
    dataDir,
    async drop() {
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** A store opened on an `isolatedDatabase`; `drop` closes it and removes what it was on. */
export async function openIsolatedStore(): Promise<{ store: Store; drop(): Promise<void> }> {
  const own = await isolatedDatabase()
  const store = own.databaseUrl
    ? await openPostgresStore({ url: own.databaseUrl, poolSize: 2 })
    : await openPGliteStore({ dataDir: own.dataDir! })
  return {
    store,
    async drop() {
      await store.close()
      await own.drop()
    },
  }
}
