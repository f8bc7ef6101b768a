/**
 * Which store this test run uses: PostgreSQL when TEST_DATABASE_URL is set, else PGlite.
 *
 * On PostgreSQL each test worker has a database of its own (`workerDatabaseUrl`), copied by the
 * global setup from the migrated one the variable names. Two workers on one database claimed each
 * other's households' events: a test server's outbox worker in one wrote notifications into a
 * household that a test in the other was reading, so a read that must see no write in between
 * (the kept report months) saw one.
 */
import { databaseName, withDatabase } from './databases.ts'

export const BASE_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined

/** The database of the worker `poolId` (1 to the run's `maxWorkers`): the base one's name plus `_w<id>`. */
export function workerDatabaseUrl(base: string, poolId: string | number): string {
  return withDatabase(base, `${databaseName(base)}_w${poolId}`)
}

/** This process's database: its worker's inside a test worker, the base one elsewhere (the global setup). */
export const TEST_DATABASE_URL =
  BASE_DATABASE_URL && process.env.VITEST_POOL_ID
    ? workerDatabaseUrl(BASE_DATABASE_URL, process.env.VITEST_POOL_ID)
    : BASE_DATABASE_URL

export const STORE_VARIANT: 'pglite' | 'postgres' = TEST_DATABASE_URL ? 'postgres' : 'pglite'

/** Where the global setup leaves a migrated PGlite folder that each worker copies. */
export const TEMPLATE_DIR_ENV = 'HEARTH_TEST_TEMPLATE_DIR'

/** The run's migrated PGlite folder (global-setup.ts), on either store: copy it, never open it. */
export function templateDir(): string {
  const dir = process.env[TEMPLATE_DIR_ENV]
  if (!dir)
    throw new Error(`${TEMPLATE_DIR_ENV} is not set: run tests through vitest, whose global setup makes it`)
  return dir
}
