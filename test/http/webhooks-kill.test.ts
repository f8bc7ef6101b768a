import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { mintApiKey } from '@hearth/server'
import { afterAll, describe, expect, it } from 'vitest'
import { apiClient } from '../src/index.ts'
import { expectStatus, H } from './catalog-fixture.ts'
import { eventually, startReceiver } from './webhook-receiver.ts'

const serverMain = join(import.meta.dirname, '../../server/src/main.ts')
const folder = mkdtempSync(join(tmpdir(), 'hearth-webhook-kill-'))
const children: ChildProcess[] = []
afterAll(() => {
  for (const child of children) child.kill('SIGKILL')
  rmSync(folder, { recursive: true, force: true })
})

/** Starts `npm start`'s entry on the test's own store folder, as production runs it. */
async function startServerProcess(token: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', serverMain], {
    env: {
      ...process.env,
      PORT: '0',
      LOG_LEVEL: 'warn',
      HEARTH_DATA_DIR: folder,
      HEARTH_INIT_OWNER_TOKEN: token,
      HEARTH_WEBHOOK_ALLOW_PRIVATE: 'true',
      HEARTH_WEBHOOK_SECRET_KEY: 'kill-test-key',
      HEARTH_WEBHOOK_TIMEOUT_MS: '1000',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  children.push(child)
  const url = await new Promise<string>((resolve, reject) => {
    let text = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString()
      const match = /listening on (http:\/\/\S+)/.exec(text)
      if (match) resolve(match[1]!)
    })
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)))
  })
  return { child, url }
}

describe('webhooks across a server kill', () => {
  it('delivers every event exactly once successfully, signed, when the server dies mid retry storm', async () => {
    const token = mintApiKey().token
    let recovering = false
    // Down (503, retry in a second) until the server has been killed, then up.
    const receiver = await startReceiver(() =>
      recovering ? { status: 200 } : { status: 503, headers: { 'retry-after': '1' } },
    )
    const first = await startServerProcess(token)
    const api = apiClient(first.url, token)
    const sub = expectStatus(
      await api.post(`${H}/webhooks/subscriptions`, { url: receiver.url, eventTypes: ['tag.created'] }),
      201,
    )
    for (let i = 0; i < 40; i++) expectStatus(await api.post(`${H}/tags`, { name: `Storm ${i}` }), 201)
    // Every event has failed at least once and retries are under way when the server dies.
    await eventually(async () => receiver.received.length >= 60, 20_000)
    first.child.kill('SIGKILL')
    await new Promise((resolve) => first.child.once('exit', resolve))
    recovering = true
    const failedBefore = receiver.received.length

    const second = await startServerProcess(token)
    const ok = () => {
      const counts = new Map<string, number>()
      receiver.received.forEach((r, i) => {
        if (i >= failedBefore) counts.set(r.id, (counts.get(r.id) ?? 0) + 1)
      })
      return counts
    }
    await eventually(async () => ok().size === 40, 30_000)
    await new Promise((resolve) => setTimeout(resolve, 3000))
    // After the kill every answer is a 2xx, so each id arriving once means once per success.
    expect([...ok().values()].every((n) => n === 1)).toBe(true)
    expect(ok().size).toBe(40)
    receiver.verifyAll(sub.secret)
    const log = expectStatus(
      await apiClient(second.url, token).get(`${H}/webhooks/subscriptions/${sub.id}/deliveries?limit=100`),
      200,
    )
    expect(log.items.map((d: { status: string }) => d.status)).toEqual(Array(40).fill('succeeded'))
  }, 180_000)
})
