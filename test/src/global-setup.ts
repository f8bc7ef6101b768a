import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openPGliteStore } from '@hearth/engine'
import { openPostgresStore } from '@hearth/engine/node'
import { prepareTestStore } from './store-fixture.ts'
import { TEMPLATE_DIR_ENV, TEST_DATABASE_URL } from './variant.ts'

/**
 * Migrates once per run: PostgreSQL directly, or a PGlite folder that every worker copies,
 * because booting a fresh PGlite costs seconds and copying a migrated folder does not.
 */
export default async function setup(): Promise<() => void> {
  if (TEST_DATABASE_URL) {
    const store = await openPostgresStore({ url: TEST_DATABASE_URL, poolSize: 1 })
    await prepareTestStore(store.db)
    await store.close()
    return () => {}
  }
  const dir = mkdtempSync(join(tmpdir(), 'hearth-test-template-'))
  const store = await openPGliteStore({ dataDir: dir })
  await prepareTestStore(store.db)
  await store.close()
  process.env[TEMPLATE_DIR_ENV] = dir
  return () => rmSync(dir, { recursive: true, force: true })
}
