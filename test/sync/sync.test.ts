import type { Hearth, RejectedEvent } from '@hearth/client'
import { SCOPES } from '@hearth/engine'
import { ulid } from 'ulidx'
import { afterEach, describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { closeDevices, eventually, expectConverged, newDevice, unbalancedAccounts } from './devices.ts'

const server = useTestServer()
afterEach(closeDevices)

/** Two synced devices of one new household. */
async function household() {
  const owner = await server.newOwner()
  const a = await newDevice(server, owner)
  const b = await newDevice(server, owner)
  await Promise.all([a.sync.whenSynced(), b.sync.whenSynced()])
  return { owner, a, b }
}

function newAccount(device: Hearth, openingBalanceCents = 0, name = 'Checking') {
  return device.mutate.accounts.create({ id: ulid(), name, type: 'cash', openingBalanceCents })
}

function newTransaction(device: Hearth, accountId: string, amountCents: number, memo?: string) {
  return device.mutate.transactions.create({ id: ulid(), accountId, date: '2024-03-10', amountCents, memo })
}

describe('sync between devices', () => {
  it('shows a change made on device A on device B', async () => {
    const { owner, a, b } = await household()
    const created = await newAccount(a, 5000)
    expect(created.balanceCents).toBe('5000')
    // A answers from its own replica at once, before the server has seen anything.
    expect(await a.query.accounts.get({ id: created.id })).toMatchObject({ name: 'Checking' })
    await eventually(async () =>
      expect(await b.query.accounts.get({ id: created.id })).toMatchObject({ balanceCents: '5000' }),
    )
    await expectConverged(server, owner.householdId, [a, b])
  })

  it('shows a REST write on both devices', async () => {
    const { owner, a, b } = await household()
    const res = await owner.api.patch(`/households/${owner.householdId}`, { name: 'Renamed over REST' })
    expect(res.status).toBe(200)
    for (const device of [a, b]) {
      await eventually(async () =>
        expect(await device.query.households.get({})).toMatchObject({ name: 'Renamed over REST' }),
      )
    }
    await expectConverged(server, owner.householdId, [a, b])
  })

  it('converges after 200 offline mutations on A while B edits the same rows', async () => {
    const { owner, a, b } = await household()
    const accounts = [await newAccount(a, 100_000, 'One'), await newAccount(a, 50_000, 'Two')]
    const shared = []
    for (let i = 0; i < 10; i++) shared.push(await newTransaction(a, accounts[i % 2]!.id, -100 * (i + 1)))
    await expectConverged(server, owner.householdId, [a, b])

    await a.sync.disconnect()
    expect(a.sync.status.state).toBe('offline')
    const made: string[] = []
    for (let i = 0; i < 200; i++) {
      const target = shared[i % shared.length]!
      if (i % 4 === 0) {
        made.push((await newTransaction(a, accounts[i % 2]!.id, -(i + 1) * 7, `offline ${i}`)).id)
      } else if (i % 4 === 1) {
        await a.mutate.transactions.update({ id: target.id, amountCents: -(i + 1) * 3 })
      } else if (i % 4 === 2) {
        await a.mutate.transactions.update({ id: target.id, memo: `A edit ${i}` })
      } else if (made.length > 0 && i % 8 === 3) {
        await a.mutate.transactions.delete({ id: made.shift()! })
      } else {
        await a.mutate.accounts.update({ id: accounts[i % 2]!.id, name: `A name ${i}` })
      }
    }
    expect(a.sync.status).toMatchObject({ state: 'offline', pending: 200 })

    // Meanwhile B, online, edits some of the same rows and deletes one A keeps editing.
    for (let i = 0; i < 6; i++) {
      await b.mutate.transactions.update({ id: shared[i]!.id, amountCents: -5000 - i, memo: `B edit ${i}` })
    }
    await b.mutate.transactions.delete({ id: shared[9]!.id })
    await b.mutate.accounts.update({ id: accounts[0]!.id, name: 'B name' })
    await newTransaction(b, accounts[1]!.id, 12_345, 'from B')
    await b.sync.whenSynced()

    const rejected: RejectedEvent[] = []
    a.on('rejected', (r) => rejected.push(r))
    a.sync.connect()
    await expectConverged(server, owner.householdId, [a, b])
    // A's edits of the row B deleted are refused; the rest were applied after B's, so they win.
    expect(rejected.length).toBeGreaterThan(0)
    expect(rejected.every((r) => r.mutation.name === 'transactions.update' && r.code === 'NOT_FOUND')).toBe(
      true,
    )
    for (const db of [server.store.db, a.store.db, b.store.db]) {
      expect(await unbalancedAccounts(db, owner.householdId)).toEqual([])
    }
    // Last writer wins per mutation, in the order the server ran them: B renamed One, A last renamed Two.
    expect(await a.query.accounts.get({ id: accounts[0]!.id })).toMatchObject({ name: 'B name' })
    expect(await b.query.accounts.get({ id: accounts[1]!.id })).toMatchObject({ name: 'A name 199' })
  }, 120_000)

  it('rejects an offline delete of an account another device booked a row on, and A matches the server', async () => {
    const { owner, a, b } = await household()
    const account = await newAccount(a)
    await expectConverged(server, owner.householdId, [a, b])

    await a.sync.disconnect()
    await a.mutate.accounts.delete({ id: account.id })
    await expect(a.query.accounts.get({ id: account.id })).rejects.toMatchObject({ code: 'NOT_FOUND' })
    await newTransaction(b, account.id, -2500, 'coffee')
    await b.sync.whenSynced()

    const rejected: RejectedEvent[] = []
    a.on('rejected', (r) => rejected.push(r))
    a.sync.connect()
    await eventually(() => expect(rejected).toHaveLength(1))
    expect(rejected[0]).toMatchObject({
      mutation: { name: 'accounts.delete', args: { id: account.id } },
      code: 'ACCOUNT_BALANCE_NOT_ZERO',
    })
    await expectConverged(server, owner.householdId, [a, b])
    expect(await a.query.accounts.get({ id: account.id })).toMatchObject({ balanceCents: '-2500' })
  })
})

describe('sync permissions', () => {
  it('refuses a mutation the device key lacks the scope for with INSUFFICIENT_SCOPE', async () => {
    const owner = await server.newOwner()
    const full = await newDevice(server, owner)
    await full.sync.whenSynced()
    const account = await newAccount(full, 1000)
    await full.sync.whenSynced()
    const token = await server.issueKey(
      owner.userId,
      SCOPES.filter((s) => s !== 'write:transactions'),
    )
    const limited = await newDevice(server, { ...owner, api: { ...owner.api, token } })
    await limited.sync.whenSynced()
    await expect(newTransaction(limited, account.id, -100)).rejects.toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      status: 403,
    })
    expect(limited.sync.status.pending).toBe(0)
    // What the key may do still works and syncs.
    await limited.mutate.accounts.update({ id: account.id, name: 'Renamed by limited key' })
    await expectConverged(server, owner.householdId, [full, limited])
  })

  it('refuses to sync a household the key’s user is not a member of', async () => {
    const owner = await server.newOwner()
    const stranger = await server.newOwner()
    const errors: { code: string; fatal: boolean }[] = []
    const device = await newDevice(
      server,
      { ...stranger, householdId: owner.householdId },
      { connect: false },
    )
    device.on('error', (e) => errors.push(e))
    device.sync.connect()
    await eventually(() =>
      expect(errors).toEqual([expect.objectContaining({ code: 'NOT_FOUND', fatal: true })]),
    )
    expect(device.sync.status.state).toBe('offline')
    await new Promise((resolve) => setTimeout(resolve, 300))
    // A refusal reconnecting cannot fix stops the retries.
    expect(errors).toHaveLength(1)
  })
})
