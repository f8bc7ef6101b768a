import type { AddressInfo } from 'node:net'
import { createHearth } from '@hearth/client'
import { ulid } from 'ulidx'
import { afterAll, describe, expect, it } from 'vitest'
import { WebSocketServer } from 'ws'
import { closeDevices, eventually, newDeviceFolder } from './devices.ts'

afterAll(closeDevices)

describe('client heartbeat', () => {
  it('leaves a server that stopped answering and connects again', async () => {
    // A server that accepts sockets and then never says a word: a half-open connection.
    const silent = new WebSocketServer({ port: 0, host: '127.0.0.1' })
    await new Promise((resolve) => silent.once('listening', resolve))
    const opened: unknown[] = []
    silent.on('connection', (socket) => opened.push(socket))
    const { port } = silent.address() as AddressInfo
    const device = await createHearth({
      serverUrl: `http://127.0.0.1:${port}`,
      token: 'hth_unused',
      household: ulid(),
      store: await newDeviceFolder(),
      heartbeatMs: 100,
      reconnectMinMs: 10,
      reconnectMaxMs: 20,
    })
    try {
      await eventually(() => expect(opened.length).toBeGreaterThanOrEqual(2), 5000)
      expect(device.sync.status.state).toBe('offline')
    } finally {
      await device.close()
      for (const client of silent.clients) client.terminate()
      await new Promise((resolve) => silent.close(resolve))
    }
  })
})
