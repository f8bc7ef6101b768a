import 'fake-indexeddb/auto'
import { gzipSync } from 'node:zlib'
import { openPGliteStore, type Store } from '@hearth/engine'
import { openDB } from 'idb'
import { sql } from 'kysely'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { makeReplicaTemplate, openBrowserReplica, templateOrNull } from './browser-replica.ts'
import { BLOCK_FS_INITDB, BLOCK_FS_SETTINGS, blockDbName, idbBlockFs } from './idb-block-fs.ts'

/** The block store's logic on fake-indexeddb; test/web/replica-storage.test.ts runs it in Chromium. */
async function open(name: string) {
  const { fs, backend } = idbBlockFs(name)
  const store: Store = await openPGliteStore({
    dataDir: `idb://${name}`,
    fs,
    initdbParams: BLOCK_FS_INITDB,
    settings: BLOCK_FS_SETTINGS,
    relaxedDurability: true,
  })
  return { store, backend, fs }
}

describe('the IndexedDB block store', () => {
  it('keeps what was written across reopening, writing a few blocks per commit', {
    timeout: 120_000,
  }, async () => {
    const name = `blocks-${ulid()}`
    const first = await open(name)
    await sql`create table notes (id int primary key, body text)`.execute(first.store.db)
    await first.fs.syncToFs()
    const before = { ...first.backend.stats }
    for (let i = 0; i < 50; i++) {
      await sql`insert into notes values (${i}, ${`note ${i} `.repeat(100)})`.execute(first.store.db)
    }
    // Each commit writes a handful of 64 kB blocks, not whole files (flushes trail the commits).
    await first.fs.syncToFs()
    const flushes = first.backend.stats.flushes - before.flushes
    const blocks = first.backend.stats.blocks - before.blocks
    expect(flushes).toBeGreaterThan(0)
    expect(blocks / flushes).toBeLessThan(8)
    const { rows: segsize } = await sql<{
      s: string
    }>`select current_setting('wal_segment_size') as s`.execute(first.store.db)
    expect(segsize[0]!.s).toBe('1MB')
    // A checkpoint writes data files; more rows after it land in the WAL only.
    await sql`checkpoint`.execute(first.store.db)
    await sql`update notes set body = 'changed' where id < 10`.execute(first.store.db)
    await sql`delete from notes where id >= 40`.execute(first.store.db)
    await first.store.close()

    const second = await open(name)
    const { rows } = await sql<{ n: number; changed: number }>`
      select count(*)::int as n, count(*) filter (where body = 'changed')::int as changed from notes`.execute(
      second.store.db,
    )
    expect(rows[0]).toEqual({ n: 40, changed: 10 })
    await second.store.close()
    expect(blockDbName(name)).toBe(`hearth-replica:${name}`)
  })

  it('holds its flushes until a held write settles, then writes what waited', {
    timeout: 120_000,
  }, async () => {
    const name = `blocks-${ulid()}`
    const first = await open(name)
    await sql`create table notes (id int primary key, body text)`.execute(first.store.db)
    await first.fs.syncToFs()
    let release!: () => void
    first.backend.holdUntil(new Promise<void>((resolve) => (release = resolve)))
    const before = first.backend.stats.flushes
    for (let i = 0; i < 20; i++) await sql`insert into notes values (${i}, 'held')`.execute(first.store.db)
    // Each query asked for a flush; none was written while held.
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(first.backend.stats.flushes).toBe(before)
    release()
    await first.fs.syncToFs()
    // What waited goes in one or two flushes, not one per statement.
    expect(first.backend.stats.flushes - before).toBeGreaterThan(0)
    expect(first.backend.stats.flushes - before).toBeLessThanOrEqual(3)
    // A refused write releases the hold too.
    first.backend.holdUntil(Promise.reject(new Error('the queue write failed')))
    await sql`insert into notes values (100, 'after a refusal')`.execute(first.store.db)
    await first.fs.syncToFs()
    await first.store.close()

    const second = await open(name)
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from notes`.execute(second.store.db)
    expect(rows[0]!.n).toBe(21)
    await second.store.close()
  })

  it('is deleted and opened empty when it fails to open', { timeout: 120_000 }, async () => {
    const name = `damaged-${ulid()}`
    const first = await openBrowserReplica(name)
    await sql`create table kept (id int)`.execute(first.store.db)
    await first.store.close()
    // pg_control, zeroed: PostgreSQL refuses to start on it.
    const db = await openDB(blockDbName(name))
    const tx = db.transaction('blocks', 'readwrite')
    for (const block of await tx.store.getAll(
      IDBKeyRange.bound(['/global/pg_control'], ['/global/pg_control', 1e9]),
    ))
      await tx.store.put({ ...block, data: new Uint8Array(block.data.length) })
    await tx.done
    db.close()
    const second = await openBrowserReplica(name)
    expect(second.rebuilt).toBe(true)
    const { rows } = await sql<{
      n: number
    }>`select count(*)::int as n from pg_class where relname = 'kept'`.execute(second.store.db)
    expect(rows[0]!.n).toBe(0)
    await second.store.close()
    const third = await openBrowserReplica(name)
    expect(third.rebuilt).toBe(false)
    await third.store.close()
  })

  it('starts a new replica from a migrated template, and the long way when the template is bad', {
    timeout: 240_000,
  }, async () => {
    const template = await makeReplicaTemplate()
    const tables = async (store: Store) =>
      (
        await sql<{ n: number }>`
          select count(*)::int as n from pg_class where relname in ('kysely_migration', 'device_state')`.execute(
          store.db,
        )
      ).rows[0]!.n

    // Opened from the template: migrated before anything migrates it, on the block store's WAL size.
    const name = `template-${ulid()}`
    const first = await openBrowserReplica(name, async () => template)
    expect(first.rebuilt).toBe(false)
    expect(await tables(first.store)).toBe(2)
    const { rows: segsize } = await sql<{
      s: string
    }>`select current_setting('wal_segment_size') as s`.execute(first.store.db)
    expect(segsize[0]!.s).toBe('1MB')
    await sql`create table kept (id int)`.execute(first.store.db)
    await first.store.close()

    // Reopened: its own blocks, and the template is not asked for.
    const second = await openBrowserReplica(name, async () => {
      throw new Error('a replica with data must not ask for the template')
    })
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_class where relname = 'kept'`.execute(second.store.db)
    expect(rows[0]!.n).toBe(1)
    await second.store.close()

    // A template that is not one: the replica is made the long way (initdb, not yet migrated).
    const garbage = gzipSync(new Uint8Array(4096).fill(7))
    const bad = await openBrowserReplica(`bad-${ulid()}`, async () => new Blob([garbage]))
    expect(bad.rebuilt).toBe(true)
    expect(await tables(bad.store)).toBe(0)
    await bad.store.close()
    // No template to be had (null, a failed fetch, an error page): the long way too.
    const none = await openBrowserReplica(`none-${ulid()}`, async () => null)
    expect(none.rebuilt).toBe(false)
    expect(await tables(none.store)).toBe(0)
    await none.store.close()
  })

  it('takes a failed fetch or an error page for no template, and a gzip stream for one', async () => {
    const failed = async (): Promise<Blob> => {
      throw new TypeError('Failed to fetch')
    }
    expect(await templateOrNull(failed)).toBeNull()
    expect(await templateOrNull(async () => null)).toBeNull()
    expect(await templateOrNull(async () => new Blob(['<html>Not found</html>']))).toBeNull()
    expect(await templateOrNull(async () => new Blob([]))).toBeNull()
    const gzip = new Blob([gzipSync(new Uint8Array(16))])
    expect(await templateOrNull(async () => gzip)).toBe(gzip)
  })
})
