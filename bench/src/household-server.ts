import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { migrateToLatest, operations, runMutation, type Store } from '@hearth/engine'
import { openStore } from '@hearth/engine/node'
import { mintApiKey } from '@hearth/server'
import { ulid } from 'ulidx'
import { type StoreName, scratchPostgres } from './bench-store.ts'
import { type SeededHousehold, seedHousehold } from './household-seed.ts'
import { startServer, stopServer } from './server-process.ts'

/**
 * A household of `size` transactions seeded by the engine (household-seed.ts) into a scratch store
 * of its own (a PGlite folder under `work`, or a scratch PostgreSQL database named after `bench`
 * and `label`), then served by a server process, with an API key of its owner. `stop()` stops the
 * server and drops the database. With `reuse` (PGlite only), a folder a previous run seeded in
 * `work` is served again rather than seeded anew.
 */
export async function householdServer(
  name: StoreName,
  work: string,
  size: number,
  label: string,
  bench: string,
  reuse = false,
  /** More the bench needs in the household, written with the engine after the seed. */
  prepare?: (store: Store, seeded: SeededHousehold) => Promise<void>,
) {
  const scratch = name === 'postgres' ? await scratchPostgres(`hearth_bench_${bench}_${label}`) : null
  const dataDir = join(work, `server-${label}`)
  const saved = join(dataDir, 'bench-seeded.json')
  try {
    if (reuse && scratch === null && existsSync(saved)) {
      const { seeded, key } = JSON.parse(readFileSync(saved, 'utf8')) as {
        seeded: Awaited<ReturnType<typeof seedHousehold>>
        key: ReturnType<typeof mintApiKey>
      }
      return { ...(await serve(dataDir, null, seeded, key)), seeded, key }
    }
    // Seed with the engine before the server opens the store (PGlite has one process per folder).
    const store = await openStore(scratch ? { databaseUrl: scratch.url, dataDir } : { dataDir })
    await migrateToLatest(store.db)
    const began = performance.now()
    const seeded = await seedHousehold(store, (m) => console.log(`[${name}] ${m}`), {
      transactions: size,
      name: `${bench} bench household (${size})`,
    })
    await prepare?.(store, seeded)
    const key = mintApiKey()
    await runMutation(
      store.db,
      operations.apiKeys.create,
      {
        id: ulid(),
        name: `${bench} bench`,
        scopes: seeded.ctx.scopes,
        keyHash: key.hash,
        prefix: key.prefix,
      },
      seeded.ctx,
    )
    await store.close()
    writeFileSync(saved, JSON.stringify({ seeded, key }))
    console.log(
      `[${name}] seeded ${size} transactions (${label}) in ${((performance.now() - began) / 1000).toFixed(1)} s`,
    )
    return { ...(await serve(dataDir, scratch, seeded, key)), seeded, key }
  } catch (error) {
    await scratch?.drop()
    throw error
  }
}

async function serve(
  dataDir: string,
  scratch: { url: string; drop: () => Promise<void> } | null,
  seeded: Awaited<ReturnType<typeof seedHousehold>>,
  key: ReturnType<typeof mintApiKey>,
) {
  const server = await startServer(scratch ? { DATABASE_URL: scratch.url } : { HEARTH_DATA_DIR: dataDir })
  const h = `${server.url}/households/${seeded.ctx.householdId}`
  const rest = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${h}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key.token}`, 'content-type': 'application/json' },
    })
    if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${await res.text()}`)
    return res.json()
  }
  const stop = async () => {
    await stopServer(server.child)
    await scratch?.drop()
  }
  return { server, url: server.url, rest, stop }
}
