import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { RunningServer } from '@hearth/server'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { newOwner, startTestServer, type TestMember } from '../src/index.ts'
import { eventually, newDeviceFolder } from './devices.ts'

let server: RunningServer
const children: ChildProcess[] = []
const folders: string[] = []

beforeAll(async () => {
  server = await startTestServer()
})
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})
afterAll(async () => {
  await server?.close()
})

/**
 * Runs `device-process.ts` on `folder`: it syncs, says `ready`, then creates tags until killed.
 * `unreaped` starts it under a parent that never reaps children (as a container's first process
 * may be), so once killed it stays a zombie whose pid still answers `kill(pid, 0)`.
 */
function deviceProcess(owner: TestMember, folder: string, offlineAfter = 1_000_000, unreaped = false) {
  const script = join(import.meta.dirname, 'device-process.ts')
  const [command, args] = unreaped
    ? ['sh', ['-c', `"$0" --import tsx "$1" & exec sleep 600`, process.execPath, script]]
    : [process.execPath, ['--import', 'tsx', script]]
  const child = spawn(command as string, args as string[], {
    env: {
      ...process.env,
      HEARTH_SERVER_URL: server.url,
      HEARTH_TOKEN: owner.api.token,
      HEARTH_HOUSEHOLD: owner.householdId,
      HEARTH_STORE: folder,
      HEARTH_OFFLINE_AFTER: String(offlineAfter),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  const state = { ready: false, acked: [] as string[], stderr: '' }
  let buffer = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString()
    const lines = buffer.split('\n')
    buffer = lines.pop()!
    for (const line of lines) {
      if (line === 'ready') state.ready = true
      const match = /^acked \d+ (\S+)$/.exec(line)
      if (match) state.acked.push(match[1]!)
    }
  })
  child.stderr!.on('data', (chunk: Buffer) => {
    state.stderr += chunk.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return { child, state, exited }
}

/** A process's state letter from /proc (`Z` for a zombie), or null when it is gone. */
function processState(pid: number): string | null {
  try {
    return /\) (\S) /.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1] ?? null
  } catch {
    return null
  }
}

async function serverTagIds(householdId: string): Promise<Set<string>> {
  const rows = await server.store.db
    .selectFrom('tags')
    .select('id')
    .where('household_id', '=', householdId)
    .execute()
  return new Set(rows.map((r) => r.id))
}

describe('a device folder lock', () => {
  it('lets a device killed with SIGKILL mid-queue start again on its folder at once', async () => {
    const owner = await newOwner(server)
    const folder = await newDeviceFolder()
    folders.push(folder)
    const first = deviceProcess(owner, folder, 5, true)
    // Past the fifth tag it is offline, so the rest wait in its queue when it dies.
    await eventually(() => expect(first.state.acked.length).toBeGreaterThanOrEqual(15), 60_000)
    const pid = Number(readFileSync(join(folder, 'hearth.lock'), 'utf8'))
    process.kill(pid, 'SIGKILL')
    // Dead but not reaped: the pid still answers, which is what fooled a pid-trusting lock.
    await eventually(() => expect(processState(pid)).toBe('Z'))
    expect(() => process.kill(pid, 0)).not.toThrow()
    const acked = [...first.state.acked]
    expect((await serverTagIds(owner.householdId)).size).toBeLessThan(acked.length)

    // No pause: the kernel dropped the dead process's lock with its files.
    const second = deviceProcess(owner, folder)
    await eventually(() => {
      expect(second.child.exitCode, second.state.stderr).toBeNull()
      expect(second.state.ready).toBe(true)
    }, 60_000)
    // Ready means synced: the dead process's queue reached the server.
    const onServer = await serverTagIds(owner.householdId)
    for (const id of acked) expect(onServer.has(id), id).toBe(true)
  }, 180_000)

  it('refuses a second live process on the same folder with a clear message', async () => {
    const owner = await newOwner(server)
    const folder = await newDeviceFolder()
    folders.push(folder)
    const first = deviceProcess(owner, folder, 0)
    await eventually(() => expect(first.state.ready).toBe(true), 60_000)

    const second = deviceProcess(owner, folder, 0)
    expect(await second.exited).not.toBe(0)
    expect(second.state.stderr).toContain(
      `The data folder ${folder} is in use by another Hearth process (pid ${first.child.pid})`,
    )
    // The first one never noticed: it still works on its folder.
    const before = first.state.acked.length
    await eventually(() => expect(first.state.acked.length).toBeGreaterThan(before + 5), 30_000)
  }, 180_000)
})
