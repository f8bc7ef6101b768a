/**
 * The server as `npm start` runs it (`server/src/main.ts`), for `bench:sockets`: on a `memory`
 * line on stdin it collects garbage (node must run with `--expose-gc`) and prints
 * `memory {"rss":…,"heapUsed":…,"external":…,"arrayBuffers":…}` in bytes, so the bench reads the
 * process's memory after a full collection rather than whenever the collector last ran. On a
 * `pauses` line it prints `pauses {…}`: its collections and event-loop delay since the previous
 * one (`pauses.ts`). On `profile start`, and `profile stop <file>`, it takes a CPU profile of
 * itself (the inspector's) and writes it to the file (open it in Chromium's DevTools), printing
 * `profile {"file":…}`. The server itself has no such switch: this lives in the bench only.
 */
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { createInterface } from 'node:readline'
import { loadConfig, startServer } from '@hearth/server'
import { watchPauses } from './pauses.ts'

const collect = (globalThis as { gc?: () => void }).gc
if (!collect) throw new Error('measured-server.ts needs node --expose-gc')

const server = await startServer(loadConfig())
const pauses = watchPauses()
const inspector = new Session()
inspector.connect()
process.stdout.write(`listening on ${server.url}\n`)
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() === 'pauses') return void process.stdout.write(`pauses ${JSON.stringify(pauses())}\n`)
  if (line.trim() === 'profile start')
    return void inspector
      .post('Profiler.enable')
      .then(() => inspector.post('Profiler.start'))
      .then(() => process.stdout.write('profile {"started":true}\n'))
  if (line.startsWith('profile stop ')) {
    const file = line.slice('profile stop '.length).trim()
    return void inspector.post('Profiler.stop').then(({ profile }) => {
      writeFileSync(file, JSON.stringify(profile))
      process.stdout.write(`profile ${JSON.stringify({ file })}\n`)
    })
  }
  if (line.trim() !== 'memory') return
  // Twice: the first pass may only queue finalizers (weak maps, closed sockets' handles).
  collect()
  collect()
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage()
  process.stdout.write(`memory ${JSON.stringify({ rss, heapUsed, external, arrayBuffers })}\n`)
})
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  })
}
