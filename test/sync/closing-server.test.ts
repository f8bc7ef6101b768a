import { loadConfig } from '@hearth/server'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { newOwner, startTestServer } from '../src/index.ts'
import { joinedSocket } from './socket.ts'

describe('a server that closes', () => {
  it('lets a push already running commit before its close completes, so the next server reads it', async () => {
    // One push a second: the second push of this device waits about a second for its turn,
    // and the server closes meanwhile.
    const server = await startTestServer({
      rateLimits: { ...loadConfig({}).rateLimits, pushesPerSecond: 1 },
    })
    const owner = await newOwner(server)
    const { socket } = await joinedSocket(server.url, owner)
    const first = ulid()
    const second = ulid()
    const create = (id: number, accountId: string) => ({
      id,
      name: 'accounts.create',
      args: { id: accountId, name: `Account ${id}`, type: 'cash' },
    })
    socket.send({ type: 'push', mutations: [create(1, first)] })
    expect(await socket.next('pushResult')).toMatchObject({ lmid: 1 })
    socket.send({ type: 'push', mutations: [create(2, second)] })
    // The server runs in this process: a timer's turn comes after the socket's message was read,
    // so the second push is waiting for its turn when the server closes.
    await new Promise((resolve) => setTimeout(resolve, 100))
    await server.close()
    // Whatever the push did is done once close resolved: committed, as nothing failed.
    const rows = await server.store.db
      .selectFrom('accounts')
      .select('id')
      .where('household_id', '=', owner.householdId)
      .where('id', 'in', [first, second])
      .execute()
    expect(rows.map((r) => r.id).sort()).toEqual([first, second].sort())
    expect((await socket.closed).code).toBe(1001)
  })
})
