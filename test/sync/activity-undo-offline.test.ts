import type { Hearth, RejectedEvent } from '@hearth/client'
import { ulid } from 'ulidx'
import { afterEach, describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { closeDevices, eventually, expectConverged, newDevice, unbalancedAccounts } from './devices.ts'

const server = useTestServer()
afterEach(closeDevices)

/** The id of each local mutation a device makes, in order, from its `change` events. */
function mutationIds(device: Hearth): number[] {
  const ids: number[] = []
  device.on('change', (e) => {
    if (e.mutation) ids.push(e.mutation.id)
  })
  return ids
}

/** Two synced devices of one owner, an account and two transactions on it, confirmed. */
async function household() {
  const owner = await server.newOwner()
  const a = await newDevice(server, owner)
  const b = await newDevice(server, owner)
  await Promise.all([a.sync.whenSynced(), b.sync.whenSynced()])
  const account = await a.mutate.accounts.create({
    id: ulid(),
    name: 'Checking',
    type: 'cash',
    openingBalanceCents: 10_000,
  })
  const groceries = await a.mutate.transactions.create({
    id: ulid(),
    accountId: account.id,
    date: '2024-03-10',
    amountCents: -1_200,
    memo: 'groceries',
  })
  const rent = await a.mutate.transactions.create({
    id: ulid(),
    accountId: account.id,
    date: '2024-03-11',
    amountCents: -50_000,
    memo: 'rent',
  })
  await expectConverged(server, owner.householdId, [a, b])
  return { owner, a, b, account, groceries, rent }
}

describe('undo on a device, offline (issue 43)', () => {
  // The first device of a PostgreSQL run builds its migrated PGlite template (about 30 s loaded).
  it('undoes its own confirmed and pending changes offline, redoes one, and converges with the server and another device', {
    timeout: 120_000,
  }, async () => {
    const { owner, a, b, account, groceries, rent } = await household()
    const ids = mutationIds(a)
    // Two edits the server confirms.
    await a.mutate.transactions.update({ id: groceries.id, memo: 'groceries and wine' })
    const memoEdit = ids.at(-1)!
    await a.mutate.transactions.update({ id: rent.id, amountCents: -52_000 })
    const rentEdit = ids.at(-1)!
    await expectConverged(server, owner.householdId, [a, b])

    await a.sync.disconnect()
    // A change still pending, undone while pending.
    const tag = await a.mutate.tags.create({ name: 'Holiday' })
    const tagCreate = ids.at(-1)!
    await a.mutate.activity.undoMutation({ mutationId: tagCreate })
    expect(await a.query.tags.list()).toEqual([])
    // A confirmed change, undone offline: the replica answers at once.
    expect(await a.mutate.activity.undoMutation({ mutationId: memoEdit })).toEqual({
      undoneMutationId: memoEdit,
      rowsRestored: 1,
    })
    expect(await a.query.transactions.get({ id: groceries.id })).toMatchObject({ memo: 'groceries' })
    // Another, and its undo undone: a redo, with the account's balance moved back and forth.
    await a.mutate.activity.undoMutation({ mutationId: rentEdit })
    const rentUndo = ids.at(-1)!
    expect(await a.query.accounts.get({ id: account.id })).toMatchObject({
      balanceCents: String(10_000 - 1_200 - 50_000),
    })
    await a.mutate.activity.undoMutation({ mutationId: rentUndo })
    expect(await a.query.transactions.get({ id: rent.id })).toMatchObject({ amountCents: '-52000' })
    expect(await a.query.accounts.get({ id: account.id })).toMatchObject({
      balanceCents: String(10_000 - 1_200 - 52_000),
    })
    expect(a.sync.status).toMatchObject({ state: 'offline', pending: 5 })
    // The server has seen none of it.
    expect((await owner.api.get(`/households/current/transactions/${groceries.id}`)).body.memo).toBe(
      'groceries and wine',
    )

    const rejected: RejectedEvent[] = []
    a.on('rejected', (r) => rejected.push(r))
    a.sync.connect()
    await expectConverged(server, owner.householdId, [a, b], 60_000)
    expect(rejected).toEqual([])
    expect(await b.query.transactions.get({ id: groceries.id })).toMatchObject({ memo: 'groceries' })
    expect(await b.query.transactions.get({ id: rent.id })).toMatchObject({ amountCents: '-52000' })
    expect((await b.query.tags.list()).map((t) => t.id)).not.toContain(tag.id)
    expect(await unbalancedAccounts(server.store.db, owner.householdId)).toEqual([])

    // The server recorded each undo as the device's, linked to what it undid.
    const undos = (await owner.api.get('/households/current/activity?operation=activity.undoMutation')).body
      .items
    expect(undos).toHaveLength(4)
    for (const entry of undos)
      expect(entry).toMatchObject({ actor: { kind: 'device' }, undoesEntryId: expect.any(String) })
    const edit = (
      await owner.api.get(
        `/households/current/activity?transactionId=${groceries.id}&operation=transactions.update`,
      )
    ).body.items[0]
    expect(edit.undoneByEntryId).toEqual(expect.any(String))
  })

  it('refuses an offline undo of a row someone changed since: the device rolls it back and shows the refusal', {
    timeout: 120_000,
  }, async () => {
    const { owner, a, b, groceries } = await household()
    const ids = mutationIds(a)
    await a.mutate.transactions.update({ id: groceries.id, memo: 'groceries and wine' })
    const memoEdit = ids.at(-1)!
    await expectConverged(server, owner.householdId, [a, b])

    await a.sync.disconnect()
    await a.mutate.activity.undoMutation({ mutationId: memoEdit })
    expect(await a.query.transactions.get({ id: groceries.id })).toMatchObject({ memo: 'groceries' })
    // Meanwhile the other device changes the same transaction.
    await b.mutate.transactions.update({ id: groceries.id, memo: 'wine only' })
    await b.sync.whenSynced()

    const rejected: RejectedEvent[] = []
    a.on('rejected', (r) => rejected.push(r))
    a.sync.connect()
    await eventually(() => expect(rejected).toHaveLength(1), 60_000)
    expect(rejected[0]).toMatchObject({
      mutation: { name: 'activity.undoMutation', args: { mutationId: memoEdit } },
      code: 'UNDO_CONFLICT',
    })
    expect(rejected[0]!.message).toMatch(/transactions\.update/)
    expect(a.sync.rejected.map((r) => r.code)).toContain('UNDO_CONFLICT')
    await expectConverged(server, owner.householdId, [a, b], 60_000)
    // Rolled back: the device shows the later change, nothing was overwritten.
    expect(await a.query.transactions.get({ id: groceries.id })).toMatchObject({ memo: 'wine only' })
  })

  it('refuses at once an undo of a change its own later change touched, naming it', {
    timeout: 120_000,
  }, async () => {
    const { a, groceries } = await household()
    const ids = mutationIds(a)
    await a.sync.disconnect()
    await a.mutate.transactions.update({ id: groceries.id, memo: 'first' })
    const first = ids.at(-1)!
    await a.mutate.transactions.update({ id: groceries.id, memo: 'second' })
    const second = ids.at(-1)!
    await expect(a.mutate.activity.undoMutation({ mutationId: first })).rejects.toMatchObject({
      code: 'UNDO_CONFLICT',
      message: expect.stringContaining(`mutation ${second}`),
    })
    expect(await a.query.transactions.get({ id: groceries.id })).toMatchObject({ memo: 'second' })
    // Undone newest first, both go.
    await a.mutate.activity.undoMutation({ mutationId: second })
    await a.mutate.activity.undoMutation({ mutationId: first })
    expect(await a.query.transactions.get({ id: groceries.id })).toMatchObject({ memo: 'groceries' })
  })
})
