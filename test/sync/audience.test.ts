import { SCOPES, type Scope } from '@hearth/engine'
import { deviceMutator } from '@hearth/engine/sync'
import type { RunningServer } from '@hearth/server'
import { ulid } from 'ulidx'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { issueKey, newOwner, startTestServer, type TestMember } from '../src/index.ts'
import { closeDevices, newDevice } from './devices.ts'
import { rawSocket } from './socket.ts'

let server: RunningServer

beforeAll(async () => {
  server = await startTestServer()
})
afterEach(closeDevices)
afterAll(async () => {
  await server?.close()
})

/** A raw device of `member`'s household that said hello and read its snapshot. */
async function joined(member: TestMember, token = member.api.token) {
  const socket = await rawSocket(server.url)
  socket.send({ type: 'hello', token, householdId: member.householdId, clientId: ulid(), cursor: null })
  await socket.next('welcome')
  while ((await socket.next('snapshot')).more) {}
  return socket
}

/** Pushes `mutations` (numbered from 1) and answers the push result. */
async function push(
  socket: Awaited<ReturnType<typeof joined>>,
  mutations: { name: string; args: unknown }[],
) {
  socket.send({ type: 'push', mutations: mutations.map((m, i) => ({ id: i + 1, ...m })) })
  return socket.next('pushResult')
}

/**
 * What a refused push must leave as it was: the household's log, the tables the pushes aim at,
 * and whether the households named in `others` exist. Notifications are left out (and with
 * them the clock they tick): the server's own notification worker writes them from the household's earlier
 * events (its creation, say) whenever its turn comes, which may be during the test.
 */
async function household(member: TestMember, others: string[] = []) {
  const db = server.store.db
  const h = member.householdId
  const [log, memberships, keys, households, transactions, tags] = await Promise.all([
    db
      .selectFrom('change_log')
      .select(['version', 'table_name', 'row_id'])
      .where('household_id', '=', h)
      .where('table_name', '<>', 'notifications')
      .execute(),
    db.selectFrom('memberships').selectAll().where('household_id', '=', h).execute(),
    db.selectFrom('api_keys').select(['id', 'scopes']).where('user_id', '=', member.userId).execute(),
    db
      .selectFrom('households')
      .select('id')
      .where('id', 'in', [h, ...others])
      .execute(),
    db.selectFrom('transactions').selectAll().where('household_id', '=', h).execute(),
    db.selectFrom('tags').selectAll().where('household_id', '=', h).execute(),
  ])
  return { log, memberships, keys, households, transactions, tags }
}

function without(...missing: Scope[]): Scope[] {
  return SCOPES.filter((s) => !missing.includes(s))
}

describe('who may push what', () => {
  it('rejects every server operation a device pushes, with NOT_A_DEVICE_OPERATION, and changes nothing', async () => {
    const owner = await newOwner(server)
    const stranger = await newOwner(server)
    const socket = await joined(owner)
    // A row and a category for a suggestion to land on, made the ordinary way first.
    const accountId = ulid()
    const transactionId = ulid()
    const groupId = ulid()
    const categoryId = ulid()
    const setup = await push(socket, [
      { name: 'accounts.create', args: { id: accountId, name: 'Checking', type: 'cash' } },
      {
        name: 'transactions.create',
        args: { id: transactionId, accountId, date: '2024-03-10', amountCents: -100 },
      },
      { name: 'categoryGroups.create', args: { id: groupId, name: 'Living' } },
      { name: 'categories.create', args: { id: categoryId, groupId, name: 'Food' } },
    ])
    expect(setup.results.map((r: any) => r.status)).toEqual(['applied', 'applied', 'applied', 'applied'])
    const newHouseholdId = ulid()
    const before = await household(owner, [newHouseholdId])

    socket.send({
      type: 'push',
      mutations: [
        { id: 5, name: 'members.add', args: { userId: stranger.userId, role: 'owner' } },
        { id: 6, name: 'transactions.suggestCategory', args: { id: transactionId, categoryId } },
        { id: 7, name: 'households.create', args: { id: newHouseholdId, name: 'Mine now' } },
        {
          id: 8,
          name: 'apiKeys.create',
          args: { id: ulid(), name: 'Sneaky', scopes: [...SCOPES], keyHash: 'a'.repeat(64), prefix: 'hth_x' },
        },
      ],
    })
    const result = await socket.next('pushResult')
    expect(result.lmid).toBe(8)
    expect(result.results).toEqual(
      [5, 6, 7, 8].map((id) =>
        expect.objectContaining({ id, status: 'rejected', code: 'NOT_A_DEVICE_OPERATION', httpStatus: 403 }),
      ),
    )
    expect(await household(owner, [newHouseholdId])).toEqual(before)
    const strangerMemberships = await server.store.db
      .selectFrom('memberships')
      .select('household_id')
      .where('user_id', '=', stranger.userId)
      .execute()
    expect(strangerMemberships).toEqual([{ household_id: stranger.householdId }])
    socket.close()
  })

  it('rejects a device operation the key lacks the scope for, and changes nothing', async () => {
    const owner = await newOwner(server)
    const token = await issueKey(server, owner.userId, without('write:households', 'write:tags'))
    const socket = await joined(owner, token)
    const before = await household(owner)
    const { results } = await push(socket, [
      { name: 'households.update', args: { name: 'Renamed' } },
      { name: 'tags.create', args: { id: ulid(), name: 'Trip' } },
    ])
    expect(results).toEqual([
      expect.objectContaining({ id: 1, status: 'rejected', code: 'INSUFFICIENT_SCOPE', httpStatus: 403 }),
      expect.objectContaining({ id: 2, status: 'rejected', code: 'INSUFFICIENT_SCOPE', httpStatus: 403 }),
    ])
    expect(await household(owner)).toEqual(before)
    socket.close()
  })

  it('rejects a name that is no operation, and changes nothing', async () => {
    const owner = await newOwner(server)
    const socket = await joined(owner)
    const before = await household(owner)
    const { results } = await push(socket, [
      { name: 'members.banish', args: { userId: owner.userId } },
      { name: 'households', args: {} },
      { name: 'tags.list', args: {} },
    ])
    expect(results.map((r: any) => [r.code, r.httpStatus])).toEqual([
      ['UNKNOWN_MUTATOR', 400],
      ['UNKNOWN_MUTATOR', 400],
      ['UNKNOWN_MUTATOR', 400],
    ])
    expect(await household(owner)).toEqual(before)
    socket.close()
  })

  it('gives the SDK no call for a server operation, and the replica refuses one by name', async () => {
    const owner = await newOwner(server)
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    // @ts-expect-error members.add and members.list run only on the server: mutate has no members
    expect(device.mutate.members).toBeUndefined()
    // @ts-expect-error households.create runs only on the server
    expect(device.mutate.households.create).toBeUndefined()
    // @ts-expect-error transactions.suggestCategory runs only on the server
    expect(device.mutate.transactions.suggestCategory).toBeUndefined()
    // @ts-expect-error apiKeys.create runs only on the server
    expect(device.mutate.apiKeys).toBeUndefined()
    expect(device.mutate.households.update).toBeTypeOf('function')
    expect(device.mutate.tags.create).toBeTypeOf('function')
    for (const name of ['members.add', 'transactions.suggestCategory', 'households.create', 'users.create']) {
      expect(() => deviceMutator(name)).toThrow(
        expect.objectContaining({ code: 'NOT_A_DEVICE_OPERATION', status: 403 }),
      )
    }
  })
})
