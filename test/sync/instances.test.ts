import { ulid } from 'ulidx'
import { afterEach, describe, expect, it } from 'vitest'
import { TEST_DATABASE_URL, useTestServer } from '../src/index.ts'
import { closeDevice, closeDevices, eventually, expectConverged, newDevice } from './devices.ts'

// Two server instances over one database, as two processes behind a load balancer would be; on
// PostgreSQL each LISTENs for the other's writes.
const first = useTestServer({ databaseUrl: TEST_DATABASE_URL })
const second = useTestServer({ databaseUrl: TEST_DATABASE_URL })
afterEach(closeDevices)

describe('several server instances', () => {
  it('shows a change pushed through one instance on a device attached to the other', async () => {
    const owner = await first.newOwner()
    const a = await newDevice(first, owner)
    const b = await newDevice(second, owner)
    await Promise.all([a.sync.whenSynced(), b.sync.whenSynced()])
    const id = ulid()
    await a.mutate.tags.create({ id, name: 'Holiday' })
    await eventually(async () => expect((await b.query.tags.list({})).map((t) => t.id)).toEqual([id]))
    await b.mutate.tags.update({ id, name: 'Summer holiday' })
    await eventually(async () =>
      expect(await a.query.tags.get({ id })).toMatchObject({ name: 'Summer holiday' }),
    )
    await expectConverged(first, owner.householdId, [a, b])
  })

  // Several instances exist only on PostgreSQL: a PGlite folder belongs to one process.
  it.skipIf(!TEST_DATABASE_URL)('shows presence across instances, joining late and leaving', async () => {
    const owner = await first.newOwner()
    const a = await newDevice(first, owner, { deviceName: 'Phone' })
    await a.sync.whenSynced()
    a.presence.set({ screen: 'budget' })
    // B's instance opens the household's room after A's state was set, so it has to ask for it.
    const b = await newDevice(second, owner, { deviceName: 'Laptop' })
    await b.sync.whenSynced()
    await eventually(() =>
      expect(b.presence.list()).toEqual([
        {
          userId: owner.userId,
          clientId: a.clientId,
          deviceName: 'Phone',
          state: { screen: 'budget' },
          self: false,
        },
      ]),
    )
    b.presence.set({ screen: 'accounts' })
    await eventually(() =>
      expect(a.presence.list()).toContainEqual(
        expect.objectContaining({
          clientId: b.clientId,
          deviceName: 'Laptop',
          state: { screen: 'accounts' },
        }),
      ),
    )
    a.presence.set({ screen: 'reports' })
    await eventually(() => expect(b.presence.list()[1]?.state).toEqual({ screen: 'reports' }))

    await closeDevice(a)
    await eventually(() => expect(b.presence.list().map((e) => e.clientId)).toEqual([b.clientId]))
  })
})
