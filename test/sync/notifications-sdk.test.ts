import { localDate, SCOPES } from '@hearth/engine'
import { announceBillsDueSoon } from '@hearth/server'
import { afterEach, describe, expect, it } from 'vitest'
import { newMember, newOwner, useTestServer } from '../src/index.ts'
import { closeDevices, eventually, newDevice } from './devices.ts'

const server = useTestServer()
afterEach(async () => {
  await closeDevices()
})

const H = '/households/current'

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
    // The member's devices never held either change.
    await memberDevice.sync.whenSynced()
    expect(await held(memberDevice)).toEqual([member.userId])
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
})
