/**
 * A device of `bench:sync` (A, which writes, and B, which watches), in a process of its own as a
 * real device would be: a device shares no event loop (nor garbage collector) with the others,
 * and PGlite runs on the thread that calls it. Commands arrive as
 * JSON lines on stdin and each is answered by one JSON line on stdout; times are wall-clock
 * milliseconds (`performance.timeOrigin + performance.now()`), comparable across processes.
 */
import { createInterface } from 'node:readline'
import { createHearth } from '@hearth/client'
import { ulid } from 'ulidx'

type Command =
  | { cmd: 'create'; id: string }
  | { cmd: 'expect'; id: string }
  | { cmd: 'arrived'; id: string }
  | { cmd: 'watch' }
  | { cmd: 'stats' }
  | { cmd: 'disconnect' }
  | { cmd: 'queue'; count: number }
  | { cmd: 'reconnect' }
  | { cmd: 'close' }

const { HEARTH_SERVER_URL, HEARTH_TOKEN, HEARTH_HOUSEHOLD, HEARTH_STORE } = process.env
const now = () => performance.timeOrigin + performance.now()
const answer = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`)

const device = await createHearth({
  serverUrl: HEARTH_SERVER_URL!,
  token: HEARTH_TOKEN!,
  household: HEARTH_HOUSEHOLD!,
  store: HEARTH_STORE!,
})
await device.sync.whenSynced({ timeoutMs: 120_000 })
answer({ ready: true })

/** Tags awaited by `expect`: resolved with the wall-clock time each shows up on the replica. */
const expected = new Map<string, { at: Promise<number>; check: () => Promise<void> }>()
const arrivedAt = (id: string) =>
  device.store.db.selectFrom('tags').select('id').where('id', '=', id).executeTakeFirst()
device.on('change', () => {
  for (const e of expected.values()) void e.check()
})

for await (const line of createInterface({ input: process.stdin })) {
  const command = JSON.parse(line) as Command
  switch (command.cmd) {
    case 'create': {
      const startedAt = now()
      await device.mutate.tags.create({ id: command.id, name: `seen ${command.id}` })
      answer({ startedAt, answeredMs: now() - startedAt })
      break
    }
    case 'expect': {
      let resolve!: (at: number) => void
      const at = new Promise<number>((r) => {
        resolve = r
      })
      let done = false
      const check = async () => {
        if (done || !(await arrivedAt(command.id))) return
        done = true
        resolve(now())
      }
      expected.set(command.id, { at, check })
      answer({})
      break
    }
    case 'arrived': {
      const at = await expected.get(command.id)!.at
      expected.delete(command.id)
      answer({ at })
      break
    }
    case 'watch':
      // A live query of a table the bench's changes never touch: it must not run again.
      device.watch('accounts.list', {}, () => {})
      answer({})
      break
    case 'stats':
      answer({ liveQueryRuns: device.stats.liveQueryRuns })
      break
    case 'disconnect':
      await device.sync.disconnect()
      answer({})
      break
    case 'queue': {
      const startedAt = now()
      for (let i = 0; i < command.count; i++)
        await device.mutate.tags.create({ id: ulid(), name: `queued ${i}` })
      answer({ ms: now() - startedAt })
      break
    }
    case 'reconnect': {
      const startedAt = now()
      device.sync.connect()
      await device.sync.whenSynced({ timeoutMs: 300_000 })
      answer({ ms: now() - startedAt })
      break
    }
    case 'close':
      await device.close()
      answer({})
      process.exit(0)
  }
}
