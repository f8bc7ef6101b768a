import type { Hearth } from '@hearth/client'
import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { createCategory, createGroup, expectStatus, H } from '../http/catalog-fixture.ts'
import { useTestServer } from '../src/index.ts'
import { closeDevices, eventually, expectConverged, newDevice } from './devices.ts'

const server = useTestServer()
afterEach(async () => {
  await closeDevices()
})

async function role(device: Hearth): Promise<string | undefined> {
  const { rows } = await sql<{ session_replication_role: string }>`show session_replication_role`.execute(
    device.store.db,
  )
  return rows[0]?.session_replication_role
}

/**
 * A small delta lands in the replication role the device is in (origin mode with migration
 * 0019's gate once it wrote, replica mode while it only receives, `Replica.rebase`), so a device
 * keeps one role, whose every change empties PostgreSQL's plan cache; a delta that origin mode
 * cannot take lands the replica way.
 */
/** A new household's device, synced, whose last transaction was a write of its own. */
async function deviceThatWrote() {
  const owner = await server.newOwner()
  const device = await newDevice(server, owner)
  await device.sync.whenSynced()
  await device.mutate.tags.create({ name: 'Local' })
  await device.sync.whenSynced()
  return { owner, device }
}

describe("the server's rows on a device", () => {
  it('land in origin mode without deriving rows twice: budget activity, splits and tags match the server', async () => {
    const { owner, device } = await deviceThatWrote()
    // Rows whose triggers derive budget activity and check split sums, written on the server.
    const api = owner.api
    const group = await createGroup(api, 'Everyday')
    const food = await createCategory(api, group.id, 'Food')
    const fun = await createCategory(api, group.id, 'Fun')
    const account = expectStatus(await api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' }), 201)
    const date = '2026-11-02'
    // Funded first: an overspent category would bring a budget-overrun notification, whose row
    // references a user no device holds, so its delta (made by the notification worker, at a time
    // of its own) lands the replica way and the role this test checks depends on when it came.
    for (const [category, assignedCents] of [
      [food, 20_000],
      [fun, 10_000],
    ] as const) {
      expectStatus(await api.patch(`${H}/budgets/2026-11/categories/${category.id}`, { assignedCents }), 200)
    }
    expectStatus(
      await api.post(`${H}/transactions`, {
        accountId: account.id,
        categoryId: food.id,
        amountCents: -4_200,
        date,
      }),
      201,
    )
    const split = expectStatus(
      await api.post(`${H}/transactions`, {
        accountId: account.id,
        amountCents: -10_000,
        date,
        splits: [
          { categoryId: food.id, amountCents: -6_000 },
          { categoryId: fun.id, amountCents: -4_000 },
        ],
      }),
      201,
    )
    expectStatus(await api.patch(`${H}/transactions/${split.id}`, { memo: 'edited on the server' }), 200)
    await expectConverged(server, owner.householdId, [device])
    expect(await role(device)).toBe('origin')
    // The device's own budget reads the synced activity once, not twice.
    const month = await device.query.budgets.get({ month: '2026-11' })
    const server_ = expectStatus(await api.get(`${H}/budgets/2026-11`), 200)
    expect(JSON.parse(JSON.stringify(month))).toEqual(server_)
  })

  it('stay in replica mode on a device that only receives, where a row costs least', async () => {
    const owner = await server.newOwner()
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    expectStatus(await owner.api.post(`${H}/tags`, { name: 'From the server' }), 201)
    await expectConverged(server, owner.householdId, [device])
    expect(await role(device)).toBe('replica')
    // Once it writes, the deltas after its write land in origin mode: no switch either way.
    await device.mutate.tags.create({ name: 'Local' })
    expectStatus(await owner.api.post(`${H}/tags`, { name: 'From the server again' }), 201)
    await expectConverged(server, owner.householdId, [device])
    expect(await role(device)).toBe('origin')
  })

  it('lands the replica way when origin mode refuses it: a member whose user the device does not hold', async () => {
    const { owner, device } = await deviceThatWrote()
    expect(await role(device)).toBe('origin')
    // The membership row references users, which no device holds: its foreign key fails in
    // origin mode, and the delta lands in replica mode instead.
    const member = await server.newMember(owner)
    await eventually(async () => {
      const rows = await device.store.db
        .selectFrom('memberships')
        .select('user_id')
        .where('household_id', '=', owner.householdId)
        .execute()
      expect(rows.map((r) => r.user_id)).toContain(member.userId)
    })
    expect(await role(device)).toBe('replica')
    await expectConverged(server, owner.householdId, [device])
    // The next local write goes on as before.
    await device.mutate.tags.create({ name: 'After' })
    await expectConverged(server, owner.householdId, [device])
  })

  it('goes the replica way for good once origin mode refused three deltas in a row', async () => {
    const owner = await server.newOwner()
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    const memberships = async () =>
      (
        await device.store.db
          .selectFrom('memberships')
          .select('user_id')
          .where('household_id', '=', owner.householdId)
          .execute()
      ).length
    // Three members, one delta each, each refused by origin mode (their users are not here).
    for (let i = 0; i < 3; i++) {
      await device.mutate.tags.create({ name: `Local ${i}` })
      await device.sync.whenSynced()
      await server.newMember(owner)
      await eventually(async () => expect(await memberships()).toBe(2 + i))
    }
    // A tag would land in origin mode; after three refusals it lands the replica way.
    await device.mutate.tags.create({ name: 'Local again' })
    await device.sync.whenSynced()
    expect(await role(device)).toBe('origin')
    expectStatus(await owner.api.post(`${H}/tags`, { name: 'From the server' }), 201)
    await expectConverged(server, owner.householdId, [device])
    expect(await role(device)).toBe('replica')
  })
})
