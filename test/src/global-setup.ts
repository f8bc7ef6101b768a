import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openPGliteStore } from '@hearth/engine'
import { openPostgresStore } from '@hearth/engine/node'
import type { TestProject } from 'vitest/node'
import { databaseName, onServer, quoteName } from './databases.ts'
import { prepareTestStore } from './store-fixture.ts'
import { BASE_DATABASE_URL, TEMPLATE_DIR_ENV, workerDatabaseUrl } from './variant.ts'

/**
 * Migrates once per run a PGlite folder that every worker copies, because booting a fresh PGlite
 * costs seconds and copying a migrated folder does not: the shared store on PGlite, and on both
 * stores every device replica and every data folder a server process or the CLI is started on.
 * On PostgreSQL it also migrates the database TEST_DATABASE_URL names, then copies it for each
 * worker (variant.ts says why).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-test-template-'))
  const [dropCopies] = await Promise.all([
    BASE_DATABASE_URL ? migratePostgres(BASE_DATABASE_URL, Math.max(1, project.config.maxWorkers)) : null,
    (async () => {
      const store = await openPGliteStore({ dataDir: dir })
      await prepareTestStore(store.db)
      await store.close()
    })(),
  ])
  process.env[TEMPLATE_DIR_ENV] = dir
  return async () => {
    await dropCopies?.()
    rmSync(dir, { recursive: true, force: true })
  }
}

async function migratePostgres(base: string, workers: number): Promise<() => Promise<void>> {
  const store = await openPostgresStore({ url: base, poolSize: 1 })
  await prepareTestStore(store.db)
  await store.close()
  return copyPerWorker(base, workers)
}

/**
 * Copies the migrated database once per worker (`create database … template`, which needs the
 * template to have no other session: nothing has connected to it yet but the migration, now
 * closed). Answers the teardown, which drops the copies.
 */
async function copyPerWorker(base: string, workers: number): Promise<() => Promise<void>> {
  const template = quoteName(databaseName(base))
  const names = Array.from({ length: workers }, (_, i) =>
    quoteName(databaseName(workerDatabaseUrl(base, i + 1))),
  )
  await onServer(
    base,
    names.flatMap((name) => [
      `drop database if exists ${name} with (force)`,
      `create database ${name} template ${template}`,
    ]),
  )
  return () =>
    onServer(
      base,
      names.map((name) => `drop database if exists ${name} with (force)`),
    )
}
