/**
 * The server as `npm start` runs it (`server/src/main.ts`), for `bench:durability`: on SIGUSR2
 * it prints the write-ahead log syncs its store has run so far (`wal-syncs {"inPlace":…,"pooled":…}`),
 * so the bench can tell how a REST write's sync ran, and (with the switch below) how long each
 * blocking one and each floor sync took since the last SIGUSR2.
 *
 * With `HEARTH_BENCH_SYNC_SWITCH=1` it also reads `run`, `skip` and `floor` lines on stdin,
 * answering `syncs <mode>`: while skipping, `fdatasync` returns at once without reaching the disk;
 * under `floor`, the disk's floor (a 200-byte append and its sync, on a file of its own) runs in
 * its place and is timed; the process is otherwise the same. The bench alternates the three
 * within one process, which tells the sync's cost from everything else apart, where two server
 * processes differ by as much as a sync on their own. Never in production: a skipped sync is a
 * lie to the client.
 */
import fs from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
import { createInterface } from 'node:readline'
import { loadConfig, startServer } from '@hearth/server'

/** What the durable store's WAL syncs do: run, skip, or stand in the floor's sync for the WAL's. */
type SyncMode = 'run' | 'skip' | 'floor'
/** Floor syncs timed in place of the WAL's, and the WAL's own blocking syncs, in milliseconds, since the bench last asked. */
const floorMs: number[] = []
const walMs: number[] = []

if (process.env.HEARTH_BENCH_SYNC_SWITCH === '1') {
  let mode: SyncMode = 'run'
  /** Files whose sync was skipped: still dirty, synced at the next switch, before its answer. */
  const skipped = new Set<number>()
  const { fdatasync, fdatasyncSync } = fs
  // The floor: a raw append of 200 bytes and its sync, in this process at the moment the WAL's
  // sync would run (this disk's sync time depends on the moment: back to back 0.05 ms, a few
  // milliseconds apart 0.1 to 1 ms).
  const floorFd = fs.openSync(`${process.env.HEARTH_DATA_DIR}.floor`, 'a')
  const bytes = Buffer.alloc(200, 1)
  const floor = () => {
    const start = performance.now()
    fs.writeSync(floorFd, bytes)
    fdatasyncSync(floorFd)
    floorMs.push(performance.now() - start)
  }
  // Every mode pays the same extra call and timing; only the system call differs.
  fs.fdatasyncSync = (fd) => {
    if (mode === 'run') {
      const start = performance.now()
      fdatasyncSync(fd)
      walMs.push(performance.now() - start)
      return
    }
    skipped.add(fd)
    if (mode === 'floor') floor()
  }
  fs.fdatasync = ((fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    if (mode === 'run') return fdatasync(fd, callback)
    skipped.add(fd)
    if (mode === 'floor') floor()
    process.nextTick(callback, null)
  }) as typeof fs.fdatasync
  // The engine imports them by name: its bindings follow the module object from here on.
  syncBuiltinESMExports()
  createInterface({ input: process.stdin }).on('line', (line) => {
    // A write after a skipped one would otherwise sync both writes' pages, and be charged for it.
    for (const fd of skipped) {
      try {
        fdatasyncSync(fd)
      } catch {
        // Closed since (an old segment): nothing of it is left to sync through this descriptor.
      }
    }
    skipped.clear()
    const asked = line.trim()
    mode = asked === 'skip' || asked === 'floor' ? asked : 'run'
    process.stdout.write(`syncs ${mode}\n`)
  })
}

const server = await startServer(loadConfig())
process.stdout.write(`listening on ${server.url}\n`)
process.on('SIGUSR2', () => {
  const counts = server.store.walSyncs?.()
  process.stdout.write(
    `wal-syncs ${JSON.stringify(counts ? { ...counts, floorMs: floorMs.splice(0), walMs: walMs.splice(0) } : null)}\n`,
  )
})
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  })
}
