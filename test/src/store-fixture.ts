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
import { TEST_DATABASE_URL, templateDir } from './variant.ts'

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
