/**
 * Device A of `bench:sync`, in a process of its own as a real device would be: a device shares
 * no event loop with the others, and PGlite runs on the thread that calls it. Commands arrive as
 * JSON lines on stdin and each is answered by one JSON line on stdout; times are wall-clock
 * milliseconds (`performance.timeOrigin + performance.now()`), comparable across processes.
 */
import { createInterface } from 'node:readline'
import { createHearth } from '@hearth/client'
import { ulid } from 'ulidx'

type Command =
  | { cmd: 'create'; id: string }
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

for await (const line of createInterface({ input: process.stdin })) {
  const command = JSON.parse(line) as Command
  switch (command.cmd) {
    case 'create': {
      const startedAt = now()
      await device.mutate.tags.create({ id: command.id, name: `seen ${command.id}` })
      answer({ startedAt, answeredMs: now() - startedAt })
      break
    }
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
