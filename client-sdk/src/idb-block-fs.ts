/**
 * A browser replica's files as blocks in IndexedDB. PGlite runs on its in-memory file system
 * (its `MemfsFrontendFS`, which notes the byte ranges each query wrote), and after each query
 * this store writes only the blocks those ranges touched, in one IndexedDB transaction. PGlite's
 * own `idb://` (Emscripten's IDBFS) rewrote every changed file whole instead: a 16 MB WAL segment
 * per commit (issue 30).
 *
 * One transaction per flush also makes each flush atomic: a closed tab or a crash leaves the
 * files as one flush or the one before left them, never a torn page (so `full_page_writes` can
 * be off, see `BLOCK_FS_SETTINGS`).
 */
import {
  type ChangeSet,
  MemfsFrontendFS,
  type StorageBackend,
  type StorageEntry,
} from '@electric-sql/pglite/memfs-frontend'
import { type DBSchema, deleteDB, type IDBPDatabase, openDB } from 'idb'

/** A block's size: PostgreSQL writes 8 kB pages, so a commit dirties one or two WAL blocks. */
export const BLOCK_SIZE = 64 * 1024

/**
 * What a new block-store replica is made with: 1 MB WAL segments, rather than initdb's 16 MB
 * (a new segment is one file PostgreSQL creates, and the first thing a fresh replica persists).
 */
export const BLOCK_FS_INITDB = ['--wal-segsize=1'] as const

/**
 * Settings for a replica on the block store. A new WAL segment is extended, not written with
 * zeros, and never a renamed old one (a rename rewrites the file in full here), so it costs one
 * block; the WAL stays a few MB (a checkpoint every couple of MB), so little is replayed at open;
 * and page images in the WAL are not needed, as a flush is atomic (see above).
 */
export const BLOCK_FS_SETTINGS = {
  min_wal_size: '2MB',
  max_wal_size: '8MB',
  wal_init_zero: 'off',
  wal_recycle: 'off',
  full_page_writes: 'off',
} as const

/** The IndexedDB database holding the replica `name` (the `name` of `idb://name`). */
export function blockDbName(name: string): string {
  return `hearth-replica:${name}`
}

interface Entry {
  /** Relative to PGDATA, starting with a slash: `/base/5/1259`. */
  path: string
  kind: 'dir' | 'file'
  /** A file's size in bytes; its blocks past the end of the file hold nothing that is read. */
  size: number
}

interface Block {
  path: string
  index: number
  /** Up to `BLOCK_SIZE` bytes; a missing block, or bytes past a short one, read as zeros. */
  data: Uint8Array
}

interface BlockDb extends DBSchema {
  entries: { key: string; value: Entry }
  blocks: { key: [string, number]; value: Block }
}

/** One block a flush writes: its new bytes, and how much of the file was stored before. */
interface BlockWrite {
  path: string
  index: number
  /** The block's length now: `BLOCK_SIZE`, or less for the file's last block. */
  length: number
  /** The file's size as stored before this flush: a block before it may hold bytes to keep. */
  stored: number
  pieces: [number, Uint8Array][]
}

/** Blocks read per request at open: 16 MB at a time. */
const LOAD_PAGE = 256

/** PGlite's storage backend over IndexedDB blocks (see the top of this file). */
export class IdbBlockStore implements StorageBackend {
  private db: IDBPDatabase<BlockDb> | null = null
  /** Each file's size as stored, which says whether a partly written block must be read first. */
  private sizes = new Map<string, number>()
  /** Flushes written and blocks put, since open (for tests and the bench). */
  readonly stats = { flushes: 0, blocks: 0 }
  /** What a flush waits for before it writes (`holdUntil`). */
  private held: Promise<unknown> = Promise.resolve()

  /**
   * Holds every flush until `until` settles: PGlite's flushes after each query are serialized
   * (`apply` is never called twice at once), so the changes wait in memory and go in one or two
   * flushes afterwards. IndexedDB runs an origin's transactions in turn, so a mutation's queue
   * record, which must be durable before the mutation commits, no longer queues behind a flush
   * per statement of the mutation it records.
   */
  holdUntil(until: Promise<unknown>): void {
    const done = until.then(
      () => {},
      () => {},
    )
    this.held = Promise.all([this.held, done])
  }

  constructor(readonly name: string) {}

  async init(): Promise<void> {
    this.db ??= await openDB<BlockDb>(blockDbName(this.name), 1, {
      upgrade(db) {
        db.createObjectStore('entries', { keyPath: 'path' })
        db.createObjectStore('blocks', { keyPath: ['path', 'index'] })
      },
    })
  }

  /**
   * Whether the store has no files yet (a new replica, or one deleted to be rebuilt). It opens the
   * store, and PGlite's `init` then keeps that connection.
   */
  async isEmpty(): Promise<boolean> {
    await this.init()
    return (await this.open().count('entries')) === 0
  }

  async *load(): AsyncIterable<StorageEntry> {
    const db = this.open()
    // Sorted by path, a folder comes before everything in it.
    const entries = await db.getAll('entries')
    const files = new Map<string, Uint8Array>()
    for (const e of entries) {
      if (e.kind !== 'file') continue
      files.set(e.path, new Uint8Array(e.size))
      this.sizes.set(e.path, e.size)
    }
    let after: IDBKeyRange | null = null
    for (;;) {
      const page: Block[] = await db.getAll('blocks', after, LOAD_PAGE)
      for (const b of page) {
        const file = files.get(b.path)
        const at = b.index * BLOCK_SIZE
        if (!file || at >= file.length) continue
        file.set(b.data.length > file.length - at ? b.data.subarray(0, file.length - at) : b.data, at)
      }
      if (page.length < LOAD_PAGE) break
      const last = page[page.length - 1]!
      after = IDBKeyRange.lowerBound([last.path, last.index], true)
    }
    for (const e of entries) {
      if (e.kind === 'dir') yield { kind: 'dir', path: e.path }
      else yield { kind: 'file', path: e.path, data: files.get(e.path)! }
    }
  }

  /**
   * Writes one flush in one transaction: the removals and new folders, then each file's entry
   * and the blocks its writes touched. A block written only in part is read first, in the same
   * transaction, unless it lies past what was stored (then the rest of it is zeros).
   */
  async apply(changes: ChangeSet): Promise<void> {
    await this.held
    const db = this.open()
    const tx = db.transaction(['entries', 'blocks'], 'readwrite', { durability: 'relaxed' })
    const entries = tx.objectStore('entries')
    const blocks = tx.objectStore('blocks')
    const sizes = new Map(this.sizes)
    const requests: Promise<unknown>[] = []
    for (const op of changes.ops) {
      if (op.op === 'mkdir') {
        requests.push(entries.put({ path: op.path, kind: 'dir', size: 0 }))
        continue
      }
      // A removal is recursive: the path, and everything under it when it is a folder.
      const under = IDBKeyRange.bound(`${op.path}/`, `${op.path}0`, false, true)
      requests.push(
        entries.delete(op.path),
        entries.delete(under),
        blocks.delete(IDBKeyRange.bound([op.path], [op.path, Number.POSITIVE_INFINITY])),
        blocks.delete(IDBKeyRange.bound([`${op.path}/`], [`${op.path}0`], false, true)),
      )
      for (const path of sizes.keys())
        if (path === op.path || path.startsWith(`${op.path}/`)) sizes.delete(path)
    }
    const writes: BlockWrite[] = []
    for (const file of [...changes.files.wal, ...changes.files.data, ...changes.files.control]) {
      let stored = sizes.get(file.path) ?? 0
      const mine = new Map<number, BlockWrite>()
      const block = (index: number) => {
        let w = mine.get(index)
        if (!w) {
          w = { path: file.path, index, length: 0, stored: 0, pieces: [] }
          mine.set(index, w)
          writes.push(w)
        }
        return w
      }
      if (file.full) {
        requests.push(blocks.delete(IDBKeyRange.bound([file.path], [file.path, Number.POSITIVE_INFINITY])))
        stored = 0
      } else if (file.truncate && file.size < stored) {
        // Shrunk: blocks past the end go, and the last one is rewritten without its tail. (A file
        // shrunk and grown again within one flush would keep its old bytes between the two sizes
        // in that block, as only the final size is known; PostgreSQL writes every page it adds.)
        const keep = Math.ceil(file.size / BLOCK_SIZE)
        requests.push(
          blocks.delete(IDBKeyRange.bound([file.path, keep], [file.path, Number.POSITIVE_INFINITY])),
        )
        if (file.size % BLOCK_SIZE !== 0) block(keep - 1)
        stored = file.size
      }
      requests.push(entries.put({ path: file.path, kind: 'file', size: file.size }))
      for (const chunk of file.chunks) {
        const end = chunk.at + chunk.data.length
        for (let at = chunk.at; at < end; ) {
          const index = Math.floor(at / BLOCK_SIZE)
          const upTo = Math.min((index + 1) * BLOCK_SIZE, end)
          block(index).pieces.push([
            at - index * BLOCK_SIZE,
            chunk.data.subarray(at - chunk.at, upTo - chunk.at),
          ])
          at = upTo
        }
      }
      for (const w of mine.values()) {
        w.length = Math.min(BLOCK_SIZE, file.size - w.index * BLOCK_SIZE)
        w.stored = stored
      }
      sizes.set(file.path, file.size)
    }
    // Every read is asked for before any put, all in this one transaction.
    await Promise.all(
      writes.map(async (w) => {
        const data = new Uint8Array(Math.max(0, w.length))
        if (!covers(w.pieces, w.length) && w.index * BLOCK_SIZE < w.stored) {
          const old = await blocks.get([w.path, w.index])
          if (old) data.set(old.data.length > data.length ? old.data.subarray(0, data.length) : old.data)
        }
        for (const [at, bytes] of w.pieces) data.set(bytes.subarray(0, Math.max(0, data.length - at)), at)
        await blocks.put({ path: w.path, index: w.index, data })
      }),
    )
    await Promise.all([...requests, tx.done])
    // The flush's sizes become the stored ones only once its transaction is done.
    this.sizes = sizes
    this.stats.flushes++
    this.stats.blocks += writes.length
  }

  async close(): Promise<void> {
    this.db?.close()
    this.db = null
  }

  private open(): IDBPDatabase<BlockDb> {
    if (!this.db) throw new Error(`The replica store ${this.name} is closed.`)
    return this.db
  }
}

/** Whether pieces (offset, bytes) cover [0, length) of a block. */
function covers(pieces: [number, Uint8Array][], length: number): boolean {
  let reach = 0
  for (const [at, bytes] of [...pieces].sort((a, b) => a[0] - b[0])) {
    if (at > reach) return false
    reach = Math.max(reach, at + bytes.length)
  }
  return reach >= length
}

/** A PGlite file system whose files persist as blocks in the IndexedDB database of `name`. */
export function idbBlockFs(name: string): { fs: MemfsFrontendFS; backend: IdbBlockStore } {
  const backend = new IdbBlockStore(name)
  return { fs: new MemfsFrontendFS(backend), backend }
}

/** Deletes the replica `name`'s blocks (it is rebuilt from the server when next opened). */
export function deleteBlockStore(name: string): Promise<void> {
  return deleteDB(blockDbName(name))
}
