import { sql } from 'kysely'
import { ulid } from 'ulidx'
import { afterEach, describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { closeDevices, eventually, expectConverged, newDevice } from './devices.ts'

const server = useTestServer()

/** Lets live-query runs already asked for finish (each is a local query of a few ms). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 200))
afterEach(closeDevices)

describe('live queries', () => {
  it('re-run only when a change touches a table they read', async () => {
    const owner = await server.newOwner()
    const a = await newDevice(server, owner)
    const b = await newDevice(server, owner)
    await Promise.all([a.sync.whenSynced(), b.sync.whenSynced()])
    const accounts: string[][] = []
    const stop = b.watch('accounts.list', {}, (r) => accounts.push(r.items.map((x) => x.name)))
    const tags: string[][] = []
    const stopTags = b.watch('tags.list', {}, (r) => tags.push(r.map((t) => t.name)))
    await eventually(() => expect([accounts, tags]).toEqual([[[]], [[]]]))
    const runs = () => b.stats.liveQueryRuns
    expect(runs()).toBe(2)

    // A tag made on A: only the tag list runs again on B.
    await a.mutate.tags.create({ id: ulid(), name: 'Holidays' })
    await eventually(() => expect(tags.at(-1)).toEqual(['Holidays']))
    expect(runs()).toBe(3)

    // A tag made on B itself: the same, locally.
    await b.mutate.tags.create({ id: ulid(), name: 'Garden' })
    await eventually(() => expect(tags.at(-1)).toEqual(['Garden', 'Holidays']))
    await b.sync.whenSynced()
    await settle()
    const afterTags = runs()

    // An account made on A: the account list runs again, the tag list does not.
    await a.mutate.accounts.create({ id: ulid(), name: 'Savings', type: 'cash' })
    await eventually(() => expect(accounts.at(-1)).toEqual(['Savings']))
    await b.sync.whenSynced()
    await settle()
    expect(runs()).toBe(afterTags + 1)

    // Once the tag list stops, a tag changes nothing on B's live queries.
    stopTags()
    const before = runs()
    await a.mutate.tags.create({ id: ulid(), name: 'Car' })
    await eventually(async () => expect((await b.query.tags.list()).map((t) => t.name)).toContain('Car'))
    await b.mutate.tags.create({ id: ulid(), name: 'Pets' })
    await b.sync.whenSynced()
    await settle()
    expect(runs() - before).toBe(0)
    stop()
  })

  it('re-run after the local call that changed their data has answered', async () => {
    const owner = await server.newOwner()
    const a = await newDevice(server, owner)
    await a.sync.whenSynced()
    const seen: string[][] = []
    a.watch('tags.list', {}, (r) => seen.push(r.map((t) => t.name)))
    await eventually(() => expect(seen).toEqual([[]]))
    const before = a.stats.liveQueryRuns
    await a.mutate.tags.create({ name: 'Garden' })
    // The query had not started when the call answered: it did not hold up the caller.
    expect(a.stats.liveQueryRuns).toBe(before)
    await eventually(() => expect(seen).toEqual([[], ['Garden']]))
    expect(a.stats.liveQueryRuns).toBe(before + 1)
  })

  it('re-run every live query after a snapshot replaced the rows', async () => {
    const owner = await server.newOwner()
    const b = await newDevice(server, owner, { connect: false })
    const seen: number[] = []
    b.watch('tags.list', {}, (r) => seen.push(r.length))
    await eventually(() => expect(seen).toEqual([0]))
    await owner.api.post(`/households/${owner.householdId}/tags`, { name: 'From REST' })
    b.sync.connect()
    await b.sync.whenSynced()
    await eventually(() => expect(seen.at(-1)).toBe(1))
  })
})

describe('the echo of a burst of local mutations', () => {
  it('confirms them without undoing and replaying those still pending', async () => {
    const owner = await server.newOwner()
    const a = await newDevice(server, owner)
    await a.sync.whenSynced()
    const names = Array.from({ length: 30 }, (_, i) => `Burst ${i}`)
    // Made without waiting, so echoes arrive while later ones are still pending.
    await Promise.all(names.map((name) => a.mutate.tags.create({ name })))
    await a.sync.whenSynced()
    expect((await a.query.tags.list()).map((t) => t.name).sort()).toEqual([...names].sort())
    expect(a.stats.replays).toBe(0)
    await expectConverged(server, owner.householdId, [a])
  })

  it('of one mutation leaves nothing to undo and the clock at the server version', async () => {
    const owner = await server.newOwner()
    const a = await newDevice(server, owner)
    await a.sync.whenSynced()
    for (const name of ['First', 'Second']) {
      await a.mutate.tags.create({ name })
      await a.sync.whenSynced()
      await expectConverged(server, owner.householdId, [a])
      const left = await sql<{ undo: number; pending: number }>`
        select (select count(*)::int from device_undo) as undo,
               (select count(*)::int from device_pending) as pending`.execute(a.store.db)
      expect(left.rows[0]).toEqual({ undo: 0, pending: 0 })
    }
    expect(a.stats.replays).toBe(0)
  })
})
