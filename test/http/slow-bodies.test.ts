import { connect } from 'node:net'
import { loadConfig, type RunningServer, startServer } from '@hearth/server'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newOwner, sharedStore } from '../src/index.ts'

const lines: { level: number; msg: string; err?: unknown }[] = []
let server: RunningServer

beforeAll(async () => {
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) })
  server = await startServer(
    { ...loadConfig({}), port: 0, host: '127.0.0.1', requestTimeoutMs: 1000 },
    { store: await sharedStore(), logger },
  )
})
afterAll(async () => {
  await server?.close()
})

/** Opens a connection and sends `head` and `body`; resolves with what came back when it closes. */
function send(head: string, body: string, abortAfterMs?: number): Promise<string> {
  const { port } = server
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(head + body)
      if (abortAfterMs !== undefined) setTimeout(() => socket.destroy(), abortAfterMs)
    })
    let answer = ''
    socket.on('data', (chunk) => {
      answer += chunk.toString()
    })
    socket.on('close', () => resolve(answer))
    socket.on('error', () => {})
  })
}

describe('request bodies that do not arrive', () => {
  it('logs a body the client abandons once, at info, with no stack', async () => {
    const owner = await newOwner(server)
    const head =
      `POST /households/${owner.householdId}/tags HTTP/1.1\r\nHost: x\r\n` +
      `Authorization: Bearer ${owner.api.token}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n`
    await send(head, '{"name": "half', 200)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(lines.filter((l) => l.level >= 50)).toEqual([])
    expect(lines.filter((l) => l.msg === 'request body aborted')).toHaveLength(1)
  })

  it('cuts a body that is still arriving after the request timeout', async () => {
    const owner = await newOwner(server)
    const head =
      `POST /households/${owner.householdId}/tags HTTP/1.1\r\nHost: x\r\n` +
      `Authorization: Bearer ${owner.api.token}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n`
    const started = Date.now()
    const answer = await send(head, '{"name": "slow')
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(answer).toMatch(/^HTTP\/1\.1 408/)
    expect(lines.filter((l) => l.level >= 50)).toEqual([])
  })
})
