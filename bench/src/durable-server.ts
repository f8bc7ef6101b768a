/**
 * The server as `npm start` runs it (`server/src/main.ts`), for `bench:durability`: on SIGUSR2
 * it prints the write-ahead log syncs its store has run so far (`wal-syncs {"inPlace":…,"pooled":…}`),
 * so the bench can tell how a REST write's sync ran.
 */
import { loadConfig, startServer } from '@hearth/server'

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
