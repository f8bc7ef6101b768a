import { setTimeout as sleep } from 'node:timers/promises'
import { localDate, operations, runMutation, SCOPES } from '@hearth/engine'
import { announceBillsDueSoon } from '@hearth/server'
import { ulid } from 'ulidx'
import { afterEach, describe, expect, it } from 'vitest'
import { type ApiClient, newMember, newOwner, useTestServer } from '../src/index.ts'
import { closeDevices, eventually, newDevice } from './devices.ts'
import { joinedSocket } from './socket.ts'

const server = useTestServer()
afterEach(async () => {
  await closeDevices()
})

const H = '/households/current'

/** A member's `change_refused` notifications over REST, read and dismissed ones too. */
async function refusals(api: ApiClient): Promise<any[]> {
  const { items } = (await api.get('/notifications?includeRead=true&includeDismissed=true')).body
  return items.filter((n: any) => n.kind === 'change_refused')
}

describe('notifications on devices', () => {
  it('reach only their member’s own devices, and read and dismiss work offline', async () => {
    const owner = await newOwner(server)
    const member = await newMember(server, owner)
    const ownerDevice = await newDevice(server, owner)
    await ownerDevice.sync.whenSynced()

    const account = (await owner.api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' })).body
    const group = (await owner.api.post(`${H}/category-groups`, { name: 'G' })).body
    const food = (await owner.api.post(`${H}/categories`, { groupId: group.id, name: 'Food' })).body
    // The member's large, overspending row: both hear of the overrun, only the owner of the size.
    await member.api.post(`${H}/transactions`, {
      accountId: account.id,
      date: '2025-03-10',
      amountCents: -90_000,
      categoryId: food.id,
    })
    const ownerFeed = await eventually(async () => {
      const items = await ownerDevice.query.notifications.list({})
      expect(items.map((n) => n.kind).sort()).toEqual(['budget_overrun', 'large_transaction'])
      return items
    })
    // A device joining later gets its member's rows in the snapshot, and nobody else's.
    const memberDevice = await newDevice(server, member)
    await memberDevice.sync.whenSynced()
    const memberFeed = await memberDevice.query.notifications.list({})
    expect(memberFeed.map((n) => n.kind)).toEqual(['budget_overrun'])
    const held = async (device: typeof ownerDevice) =>
      (await device.store.db.selectFrom('notifications').select('user_id').execute()).map((r) => r.user_id)
    expect(new Set(await held(ownerDevice))).toEqual(new Set([owner.userId]))
    expect(await held(memberDevice)).toEqual([member.userId])

    // Another member's notification is not there to mark.
    await expect(memberDevice.mutate.notifications.markRead({ id: ownerFeed[0]!.id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    })

    await ownerDevice.sync.disconnect()
    const [first, second] = ownerFeed
    await ownerDevice.mutate.notifications.markRead({ id: first!.id })
    await ownerDevice.mutate.notifications.dismiss({ id: second!.id })
    const offline = await ownerDevice.query.notifications.list({})
    expect(offline.map((n) => n.id)).toEqual([first!.id])
    expect(offline[0]!.readAt).not.toBeNull()
    ownerDevice.sync.connect()
    await eventually(async () => {
      const rest = (await owner.api.get('/notifications?includeRead=true&includeDismissed=true')).body.items
      expect(rest.find((n: any) => n.id === first!.id).readAt).not.toBeNull()
      expect(rest.find((n: any) => n.id === second!.id).dismissedAt).not.toBeNull()
    })
    // The member's devices never held either change. (The server refused the member's markRead
    // too, which the device sent on anyway: the member hears of that, and alone.)
    await memberDevice.sync.whenSynced()
    expect(new Set(await held(memberDevice))).toEqual(new Set([member.userId]))
    await eventually(async () =>
      expect((await memberDevice.query.notifications.list({})).map((n) => n.kind).sort()).toEqual([
        'budget_overrun',
        'change_refused',
      ]),
    )
  })

  it('brings a bill due soon to each member’s own devices, once, and not to a member who turned it off', async () => {
    const owner = await newOwner(server)
    const member = await newMember(server, owner)
    const quiet = await newMember(server, owner)
    await quiet.api.put('/notifications/preferences', {
      items: [{ kind: 'bill_due_soon', channel: 'in_app', enabled: false }],
    })
    const ownerDevice = await newDevice(server, owner)
    const memberDevice = await newDevice(server, member)
    const quietDevice = await newDevice(server, quiet)
    const account = (await owner.api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' })).body
    const today = localDate(new Date(), 'UTC')
    const due = new Date(Date.parse(`${today}T00:00:00Z`) + 2 * 86_400_000).toISOString().slice(0, 10)
    const rent = (
      await owner.api.post(`${H}/recurrences`, {
        name: 'Rent',
        accountId: account.id,
        amountCents: -120_000,
        frequency: 'monthly',
        dayOfMonth: Number(due.slice(8)),
        startDate: due,
      })
    ).body
    const actor = { actor: 'system' as const, scopes: SCOPES, now: new Date() }
    await announceBillsDueSoon(server.store, actor)
    await announceBillsDueSoon(server.store, actor)
    for (const [device, who] of [
      [ownerDevice, owner],
      [memberDevice, member],
    ] as const) {
      const bills = await eventually(async () => {
        const items = (await device.query.notifications.list({})).filter((n) => n.kind === 'bill_due_soon')
        expect(items).toHaveLength(1)
        return items
      })
      expect(bills[0]).toMatchObject({
        title: `Rent is due ${due}`,
        subject: { type: 'recurrence', recurrenceId: rent.id, date: due },
      })
      const held = await device.store.db.selectFrom('notifications').select('user_id').execute()
      expect(new Set(held.map((r) => r.user_id))).toEqual(new Set([who.userId]))
    }
    await quietDevice.sync.whenSynced()
    expect(await quietDevice.query.notifications.list({})).toEqual([])
  })

  it('tells only the member whose device pushed a change the server refused, on their own devices', async () => {
    const owner = await newOwner(server)
    const member = await newMember(server, owner)
    const ownerDevice = await newDevice(server, owner)
    const memberDevice = await newDevice(server, member)
    const tag = (await owner.api.post(`${H}/tags`, { name: 'Trip' })).body
    await eventually(async () => expect(await memberDevice.query.tags.list()).toHaveLength(1))

    // The member renames the tag offline; meanwhile the owner deletes it.
    await memberDevice.sync.disconnect()
    await memberDevice.mutate.tags.update({ id: tag.id, name: 'Trip, renamed offline' })
    expect((await owner.api.delete(`${H}/tags/${tag.id}`)).status).toBe(204)
    memberDevice.sync.connect()
    await eventually(() => expect(memberDevice.sync.rejected).toHaveLength(1))

    // The member's devices get it (this one, and any other), with what it concerns.
    const [n] = await eventually(async () => {
      const items = (await memberDevice.query.notifications.list({})).filter(
        (x) => x.kind === 'change_refused',
      )
      expect(items).toHaveLength(1)
      return items
    })
    expect(n).toMatchObject({
      householdId: member.householdId,
      title: 'A change from your device was refused',
      subject: {
        type: 'change',
        operation: 'tags.update',
        targetId: tag.id,
        clientId: expect.any(String),
        mutationId: expect.stringMatching(/^\d+$/),
      },
    })
    expect(n!.body).toMatch(/^The server refused tags\.update: /)
    await sleep(1500)
    expect(await refusals(member.api)).toHaveLength(1)
    // Nobody else hears of it: not the owner, whose delete it was, on any channel or device.
    expect(await refusals(owner.api)).toEqual([])
    await ownerDevice.sync.whenSynced()
    expect(
      (await ownerDevice.query.notifications.list({})).filter((x) => x.kind === 'change_refused'),
    ).toEqual([])
    const held = await ownerDevice.store.db.selectFrom('notifications').select('user_id').execute()
    expect(held.map((r) => r.user_id)).not.toContain(member.userId)
  })

  it('tells of each refused mutation once, a resent one and a garbled one included; never a member who left', async () => {
    const owner = await newOwner(server)
    const member = await newMember(server, owner)
    const { socket } = await joinedSocket(server.url, member)
    const missing = ulid()
    const mutations = [
      { id: 1, name: 'accounts.delete', args: { id: missing } },
      // A name that is no mutation, and an id no row could have: refused, with no target.
      { id: 2, name: 'accounts.explode', args: { id: 'not\u0000an id' } },
    ]
    socket.send({ type: 'push', mutations })
    expect((await socket.next('pushResult')).results.map((r: any) => r.status)).toEqual([
      'rejected',
      'rejected',
    ])
    // The device never heard back, say, and pushes the same mutations again: both are skipped.
    socket.send({ type: 'push', mutations })
    expect((await socket.next('pushResult')).results.map((r: any) => r.status)).toEqual([
      'skipped',
      'skipped',
    ])
    socket.close()

    const items = await eventually(async () => {
      const found = await refusals(member.api)
      expect(found).toHaveLength(2)
      return found
    })
    expect(items.map((n) => n.subject).sort((a, b) => a.mutationId.localeCompare(b.mutationId))).toEqual([
      expect.objectContaining({ operation: 'accounts.delete', mutationId: '1', targetId: missing }),
      { type: 'change', operation: 'accounts.explode', mutationId: '2', clientId: expect.any(String) },
    ])
    await sleep(1500)
    expect(await refusals(member.api)).toHaveLength(2)
    expect(await refusals(owner.api)).toEqual([])

    // One event per refusal, for webhooks too; a member who has left by the time it is handled
    // hears nothing of it.
    const events = (
      await server.store.db
        .selectFrom('outbox')
        .select('payload')
        .where('household_id', '=', owner.householdId)
        .execute()
    )
      .map((e) => e.payload as any)
      .filter((p) => p.type === 'change.refused')
    expect(events).toHaveLength(2)
    expect(events[0]).toMatchObject({ actorUserId: member.userId, version: null })
    expect((await owner.api.delete(`${H}/members/${member.userId}`)).status).toBe(204)
    const { result } = await runMutation(
      server.store.db,
      operations.notifications.generate,
      { event: { ...events[0], id: `evt_${ulid()}` }, channels: ['in_app'] },
      { householdId: owner.householdId, userId: 'system', role: 'owner', scopes: SCOPES, now: new Date() },
    )
    expect(result).toEqual({ created: 0 })
  })
})
