import { closeSync, fsyncSync, openSync, readdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { NodeFS } from '@electric-sql/pglite/nodefs'
import type { DurableStorage } from './pglite-store.ts'
import { WalSync } from './wal-sync.ts'

/** The parts of Emscripten's Node file system this reaches into. */
interface EmscriptenNode {
  name: string
  parent?: EmscriptenNode
}
interface EmscriptenStream {
  node: EmscriptenNode
  nfd: number
}
interface NodeFsModule {
  NODEFS: {
    realPath(node: EmscriptenNode): string
    tryFSOperation<T>(run: () => T): T
    stream_ops: {
      write(stream: EmscriptenStream, ...rest: unknown[]): number
      fsync?(stream: EmscriptenStream): number
    }
    node_ops: {
      rename(oldNode: EmscriptenNode, newDir: EmscriptenNode, newName: string): void
      unlink(parent: EmscriptenNode, name: string): void
    }
  }
}

/**
 * PGlite's start parameters for a durable folder: its defaults without `-F` (fsync off), and the
 * WAL synced with `fsync()`, the one sync call Emscripten passes on to a file system
 * (`fdatasync()` never reaches it). The other settings are PostgreSQL's defaults, said again so
 * that no configuration file in the folder can turn them off.
 */
export const DURABLE_START_PARAMS: readonly string[] = [
  ...PGlite.defaultStartParams.filter((p) => p !== '-F'),
  ...['-c', 'fsync=on', '-c', 'synchronous_commit=on', '-c', 'full_page_writes=on'],
  ...['-c', 'wal_sync_method=fsync'],
]

/**
 * PGlite's Node file system with real syncs. Emscripten's Node file system has no `fsync`, so
 * PostgreSQL's syncs (of the WAL at each commit, of data files and the control file at a
 * checkpoint, of folders after a rename) did nothing. Here a sync of a WAL segment is handed to
 * `WalSync` (group commit, after the call into WebAssembly), and any other sync, or any write to
 * a file outside `pg_wal`, first syncs the WAL still waiting, then runs at once: PostgreSQL's
 * write-ahead rule holds on disk, not only in its buffers.
 */
class DurableNodeFS extends NodeFS {
  readonly wal = new WalSync()

  override async init(pg: PGlite, opts: Parameters<NodeFS['init']>[1]) {
    const { emscriptenOpts } = await super.init(pg, opts)
    const patch = (mod: unknown) => this.#patch(mod as NodeFsModule)
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [...(emscriptenOpts.preRun ?? []), patch] } }
  }

  override async closeFs(): Promise<void> {
    await super.closeFs()
    await this.wal.close()
  }

  #patch({ NODEFS }: NodeFsModule): void {
    const ops = NODEFS.stream_ops
    const write = ops.write
    const wal = this.wal
    ops.write = (stream, ...rest) => {
      if (wal.pending && !isWal(stream.node)) NODEFS.tryFSOperation(() => wal.syncNow())
      return write(stream, ...rest)
    }
    // PostgreSQL recycles or removes a segment (after a checkpoint) by its name: a sync still
    // waiting for it runs now, under the name it has, and a round that finds the name gone
    // knows the file was synced before it moved.
    const nodeOps = NODEFS.node_ops
    const rename = nodeOps.rename
    nodeOps.rename = (oldNode, newDir, newName) => {
      if (isWal(oldNode)) NODEFS.tryFSOperation(() => wal.moving(NODEFS.realPath(oldNode)))
      return rename(oldNode, newDir, newName)
    }
    const unlink = nodeOps.unlink
    nodeOps.unlink = (parent, name) => {
      if (parent.name === 'pg_wal' && WAL_SEGMENT.test(name)) {
        NODEFS.tryFSOperation(() => wal.moving(join(NODEFS.realPath(parent), name)))
      }
      return unlink(parent, name)
    }
    ops.fsync = (stream) => {
      if (isWal(stream.node)) {
        wal.defer(NODEFS.realPath(stream.node))
        return 0
      }
      NODEFS.tryFSOperation(() => {
        wal.syncNow()
        fsyncSync(stream.nfd)
      })
      return 0
    }
  }
}

/**
 * A WAL segment (24 hex digits) in `pg_wal`. A segment being created (`xlogtemp.<pid>`, filled,
 * synced, then renamed into place) is synced at once: its name is gone by the time a deferred
 * sync would run.
 */
function isWal(node: EmscriptenNode): boolean {
  return node.parent?.name === 'pg_wal' && WAL_SEGMENT.test(node.name)
}

const WAL_SEGMENT = /^[0-9A-F]{24}$/

/**
 * What `openPGliteStore` needs to keep a data folder durable: the file system, the start
 * parameters, and the wait for the WAL before a commit is answered. A folder PGlite creates
 * (initdb, in another module instance, with syncing off) is synced whole once it has opened.
 */
export function durableStorage(dataDir: string): DurableStorage {
  const fresh = !existsIn(dataDir, 'PG_VERSION')
  const fs = new DurableNodeFS(dataDir)
  return {
    fs,
    startParams: DURABLE_START_PARAMS,
    settle: (alone) => fs.wal.settle(alone),
    syncs: () => ({ ...fs.wal.counts }),
    afterOpen: () => {
      if (!fresh) return
      syncTree(dataDir)
      syncPath(dirname(dataDir))
    },
  }
}

/** Syncs every file and folder under `dir`, folders after what they hold. */
export function syncTree(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) syncTree(path)
    else if (entry.isFile()) syncPath(path)
  }
  syncPath(dir)
}

function syncPath(path: string): void {
  const fd = openSync(path, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

function existsIn(dir: string, name: string): boolean {
  try {
    statSync(join(dir, name))
    return true
  } catch {
    return false
  }
}
