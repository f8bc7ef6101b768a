import { Writable } from 'node:stream'
import { loadConfig, type RunningServer, startServer } from '@hearth/server'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isolatedStore, newOwner } from '../src/index.ts'
import { expectStatus, H } from './catalog-fixture.ts'

const WARNING = /HEARTH_WEBHOOK_SECRET_KEY is not set/

/** A logger whose lines the test reads. */
function capturedLogger() {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk))
      done()
    },
  })
  return {
    lines,
    logger: pino({ level: 'info' }, stream),
    warnings: () => lines.filter((l) => WARNING.test(l)),
  }
}

let store: Awaited<ReturnType<typeof isolatedStore>>
beforeAll(async () => {
  store = await isolatedStore()
})
afterAll(() => store.drop())

async function start(log: ReturnType<typeof capturedLogger>): Promise<RunningServer> {
  const defaults = loadConfig({})
  return startServer(
    {
      ...defaults,
      ...store.config,
      port: 0,
      host: '127.0.0.1',
      webhooks: { ...defaults.webhooks, secretKey: undefined, allowPrivate: true },
    },
    { logger: log.logger },
  )
}

describe('the warning that webhook secrets are stored unencrypted', () => {
  it('is given only once a webhook exists: at its creation, then at every start', async () => {
    const first = capturedLogger()
    let server = await start(first)
    try {
      expect(first.warnings()).toEqual([])
      const { api } = await newOwner(server)
      const sub = { url: 'http://127.0.0.1:9/', eventTypes: ['*'] }
      expectStatus(await api.post(`${H}/webhooks/subscriptions`, sub), 201)
      expectStatus(await api.post(`${H}/webhooks/subscriptions`, sub), 201)
      expect(first.warnings()).toHaveLength(1)
    } finally {
      await server.close()
    }
    const second = capturedLogger()
    server = await start(second)
    try {
      expect(second.warnings()).toHaveLength(1)
    } finally {
      await server.close()
    }
    // Two starts on a store of its own, each migrating it first.
  }, 120_000)
})
