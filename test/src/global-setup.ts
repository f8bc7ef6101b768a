import { accessSync, chmodSync, constants, mkdtempSync, rmSync, statfsSync } from 'node:fs'
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
  // Every temporary folder of the run (the template, its copies, data folders, Chromium's
  // profiles) goes under one folder, which the workers and the processes they start inherit as
  // TMPDIR, and which the teardown removes with whatever a test left behind.
  const scratch = mkdtempSync(join(scratchRoot(), 'hearth-test-run-'))
  // As /tmp is: the cluster tests run PostgreSQL as the postgres user in a folder of their own here.
  chmodSync(scratch, 0o1777)
  process.env.TMPDIR = scratch
  const dir = mkdtempSync(join(scratch, 'template-'))
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
    rmSync(scratch, { recursive: true, force: true })
  }
}

/** Room a run's scratch folder needs at most: a few dozen data folders of 40 MB at once, and Chromium's profiles. */
const SCRATCH_ROOM = 4 * 1024 ** 3

/**
 * Where the run's scratch folder goes: TMPDIR when it is set, else `/dev/shm` when it is a
 * writable folder with room, else the system's temporary folder. The run copies the migrated
 * template hundreds of times (every device replica and data folder) and deletes each copy: in
 * memory a copy takes about 60 ms and its removal 16 ms, on this machine's ext4 160 ms and 100 ms.
 * Nothing in the suite needs a disk: a crash test kills a process, and the kernel keeps its pages.
 */
function scratchRoot(): string {
  if (process.env.TMPDIR) return tmpdir()
  const shm = '/dev/shm'
  try {
    accessSync(shm, constants.W_OK)
    const { bavail, bsize } = statfsSync(shm)
    if (bavail * bsize >= SCRATCH_ROOM) return shm
  } catch {
    // No such folder, or not ours to write: the system's temporary folder.
  }
  return tmpdir()
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
