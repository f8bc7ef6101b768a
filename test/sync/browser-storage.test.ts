import 'fake-indexeddb/auto'
import {
  browserPlatform,
  createHearthWith,
  type Hearth,
  type HearthPlatform,
  IdbQueue,
  type SocketLike,
} from '@hearth/client'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { type TestMember, useTestServer } from '../src/index.ts'
import { expectConverged } from './devices.ts'

const server = useTestServer()

/** The browser platform under fake-indexeddb; only the socket comes from `ws`, as Node 20 has none. */
const platform: HearthPlatform = {
  ...browserPlatform,
  socket: (url: string) => new WebSocket(url) as unknown as SocketLike,
}

function open(member: TestMember, store: string, on = platform): Promise<Hearth> {
  return createHearthWith(on, {
    serverUrl: server.url,
    token: member.api.token,
    household: member.householdId,
    store,
    reconnectMinMs: 20,
  })
}

describe('browser storage (idb:// and the IndexedDB queue)', () => {
  it('keeps the replica and unsent mutations in IndexedDB across a restart, and syncs them once', async () => {
    const owner = await server.newOwner()
    const store = `idb://hearth-${ulid()}`
    const first = await open(owner, store)
    await first.sync.whenSynced()
    await first.sync.disconnect()
    await first.mutate.tags.create({ id: ulid(), name: 'Offline in a tab' })
    await first.close()

    // The tab died after the queue's strict write and before the replica's.
    const queue = await IdbQueue.open(`hearth-queue:${store.slice('idb://'.length)}`)
    await queue.append({
      type: 'mutation',
      id: 2,
      name: 'tags.create',
      args: { id: ulid(), name: 'Queued only' },
      at: new Date().toISOString(),
    })
    await queue.close()

    const second = await open(owner, store)
    expect(second.clientId).toBe(first.clientId)
    expect(second.sync.status.pending).toBe(2)
    expect((await second.query.tags.list({})).map((t) => t.name)).toEqual(['Offline in a tab', 'Queued only'])
    // fake-indexeddb writes are slow: give the rebase time to land.
    await expectConverged(server, owner.householdId, [second], 120_000)
    expect(
      await server.store.db
        .selectFrom('tags')
        .select('name')
        .where('household_id', '=', owner.householdId)
        .execute(),
    ).toHaveLength(2)
    await second.close()
  }, 300_000)
})
