/**
 * The server as `npm start` runs it (`server/src/main.ts`), for `bench:durability`: on SIGUSR2
 * it prints the write-ahead log syncs its store has run so far (`wal-syncs {"inPlace":…,"pooled":…}`),
 * so the bench can tell how a REST write's sync ran.
 *
 * With `HEARTH_BENCH_SYNC_SWITCH=1` it also reads `skip` and `sync` lines on stdin, answering
 * `syncs skip` or `syncs run`: while skipping, `fdatasync` returns at once without reaching the
 * disk, and the process is otherwise the same. The bench alternates the two within one process,
 * which tells the sync's cost from everything else apart, where two server processes differ by
 * as much as a sync on their own. Never in production: a skipped sync is a lie to the client.
 */
import fs from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
import { createInterface } from 'node:readline'
import { loadConfig, startServer } from '@hearth/server'

if (process.env.HEARTH_BENCH_SYNC_SWITCH === '1') {
  let skip = false
  const { fdatasync, fdatasyncSync } = fs
  // Both modes pay the same extra call; only the system call differs.
  fs.fdatasyncSync = (fd) => {
    if (!skip) fdatasyncSync(fd)
  }
  fs.fdatasync = ((fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    if (skip) process.nextTick(callback, null)
    else fdatasync(fd, callback)
  }) as typeof fs.fdatasync
  // The engine imports them by name: its bindings follow the module object from here on.
  syncBuiltinESMExports()
  createInterface({ input: process.stdin }).on('line', (line) => {
    skip = line.trim() === 'skip'
    process.stdout.write(`syncs ${skip ? 'skip' : 'run'}\n`)
  })
}

const server = await startServer(loadConfig())
process.stdout.write(`listening on ${server.url}\n`)
process.on('SIGUSR2', () => {
  process.stdout.write(`wal-syncs ${JSON.stringify(server.store.walSyncs?.() ?? null)}\n`)
})
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  })
}
