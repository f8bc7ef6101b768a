import { ulid } from 'ulidx'
import { afterEach, describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { closeDevices, expectConverged, newDevice } from './devices.ts'

const server = useTestServer()
afterEach(async () => {
  await closeDevices()
})

const H = '/households/current'

/** A row's classified columns as a store holds them (updated_at is the server's own instant). */
async function classified(db: any, householdId: string, id: string) {
  return db
    .selectFrom('transactions')
    .select(['id', 'category_id', 'payee_id', 'memo'])
    .where('household_id', '=', householdId)
    .where('id', '=', id)
    .executeTakeFirstOrThrow()
}

async function applications(db: any, householdId: string) {
  return db
    .selectFrom('rule_applications')
    .select(['id', 'rule_id', 'transaction_id', 'trigger', 'changes'])
    .where('household_id', '=', householdId)
    .orderBy('id')
    .execute()
}

async function runs(db: any, householdId: string) {
  return db
    .selectFrom('rule_runs')
    .select(['id', 'rule_id', 'transaction_ids', 'changes'])
    .where('household_id', '=', householdId)
    .orderBy('id')
    .execute()
}

describe('rules on a device', () => {
  it('classify a row created offline exactly as the server does when the mutation replays', async () => {
    const owner = await server.newOwner()
    const { api, householdId } = owner
    const group = (await api.post(`${H}/category-groups`, { name: 'Everyday' })).body
    const groceries = (await api.post(`${H}/categories`, { groupId: group.id, name: 'Groceries' })).body.id
    const fuel = (await api.post(`${H}/categories`, { groupId: group.id, name: 'Fuel' })).body.id
    const tag = (await api.post(`${H}/tags`, { name: 'car' })).body.id
    const account = (await api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' })).body.id
    for (const body of [
      {
        name: 'Groceries',
        predicate: {
          combinator: 'all',
          conditions: [{ field: 'payee_name', op: 'matches', value: '^rewe\\b' }],
        },
        action: { setCategoryId: groceries },
        priority: 1,
      },
      {
        name: 'Fuel',
        predicate: {
          combinator: 'any',
          conditions: [
            { field: 'payee_name', op: 'contains', value: 'shell' },
            { field: 'outflow', op: 'approx', value: 6000 },
          ],
        },
        action: { setCategoryId: fuel, addTagIds: [tag], appendMemo: ' ⛽' },
        priority: 2,
      },
    ])
      expect((await api.post(`${H}/rules`, body)).status).toBe(201)

    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    expect((await device.query.rules.list({})).items.map((r) => r.name)).toEqual(['Groceries', 'Fuel'])
    await device.sync.disconnect()
    const ids = [ulid(), ulid(), ulid()]
    await device.mutate.transactions.create({
      id: ids[0],
      accountId: account,
      date: '2025-05-02',
      amountCents: -2599,
      payeeName: 'REWE Markt',
    })
    await device.mutate.transactions.bulkCreate({
      transactions: [
        {
          id: ids[1],
          accountId: account,
          date: '2025-05-03',
          amountCents: -5800,
          payeeName: 'Aral',
          memo: 'tank',
        },
        { id: ids[2], accountId: account, date: '2025-05-03', amountCents: -100, payeeName: 'Kiosk' },
      ],
    })
    // Classified on the device, offline.
    const offline = await Promise.all(ids.map((id) => classified(device.store.db, householdId, id)))
    expect(offline.map((r) => [r.category_id, r.memo])).toEqual([
      [groceries, null],
      [fuel, 'tank ⛽'],
      [null, null],
    ])
    const offlineApplications = await applications(device.store.db, householdId)
    expect(offlineApplications).toHaveLength(2)

    device.sync.connect()
    await expectConverged(server, householdId, [device])
    // The server's replay made the same rows and the same records, ids included.
    const online = await Promise.all(ids.map((id) => classified(server.store.db, householdId, id)))
    expect(online).toEqual(offline)
    expect(await applications(server.store.db, householdId)).toEqual(offlineApplications)
    const tagged = await api.get(`${H}/transactions/${ids[1]}`)
    expect(tagged.body.tagIds).toEqual([tag])
  })

  it('learn a category offline exactly as the server does when the mutations replay', async () => {
    const owner = await server.newOwner()
    const { api, householdId } = owner
    const group = (await api.post(`${H}/category-groups`, { name: 'Everyday' })).body
    const groceries = (await api.post(`${H}/categories`, { groupId: group.id, name: 'Groceries' })).body.id
    const account = (await api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' })).body.id
    const payee = (await api.post(`${H}/payees`, { name: 'Corner Shop' })).body.id
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    await device.sync.disconnect()
    for (const day of ['01', '02', '03'])
      await device.mutate.transactions.create({
        accountId: account,
        date: `2025-05-${day}`,
        amountCents: -700,
        payeeId: payee,
        categoryId: groceries,
      })
    const next = await device.mutate.transactions.create({
      accountId: account,
      date: '2025-05-04',
      amountCents: -300,
      payeeId: payee,
    })
    // Learned on the device, offline, and the rule already categorized the fourth row.
    const offline = (await device.query.rules.list({})).items
    expect(offline).toMatchObject([
      { name: 'Corner Shop (learned)', learned: true, action: { setCategoryId: groceries } },
    ])
    expect(next.categoryId).toBe(groceries)

    device.sync.connect()
    await expectConverged(server, householdId, [device])
    const online = (await api.get(`${H}/rules`)).body.items
    expect(online.map(({ createdAt, updatedAt, ...r }: any) => r)).toEqual(
      offline.map(({ createdAt, updatedAt, ...r }) => r),
    )
    expect((await api.get(`${H}/transactions/${next.id}`)).body.categoryId).toBe(groceries)
  })

  it('back-fill on a device gives the server the same rows', async () => {
    const owner = await server.newOwner()
    const { api, householdId } = owner
    const group = (await api.post(`${H}/category-groups`, { name: 'Everyday' })).body
    const dining = (await api.post(`${H}/categories`, { groupId: group.id, name: 'Dining' })).body.id
    const account = (await api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' })).body.id
    const rows = []
    for (const payeeName of ['Pizza Roma', 'Sushi Bar', 'Pizza Hut'])
      rows.push(
        (
          await api.post(`${H}/transactions`, {
            accountId: account,
            date: '2025-05-01',
            amountCents: -1500,
            payeeName,
          })
        ).body.id,
      )
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    const rule = await device.mutate.rules.create({
      id: ulid(),
      name: 'Pizza',
      predicate: { combinator: 'all', conditions: [{ field: 'payee_name', op: 'contains', value: 'pizza' }] },
      action: { setCategoryId: dining },
    })
    const preview = await device.query.rules.preview({ id: rule.id })
    expect(preview.changedCount).toBe(2)
    const applied = await device.mutate.rules.apply({ id: rule.id })
    expect(applied).toEqual(preview)
    await expectConverged(server, householdId, [device])
    const onServer = await Promise.all(rows.map((id) => classified(server.store.db, householdId, id)))
    expect(onServer.map((r) => r.category_id)).toEqual([dining, null, dining])
    // One record for the two rows the rule changed alike, the same on both sides, id included;
    // listed per row on the device as over REST.
    const records = await runs(server.store.db, householdId)
    expect(records).toEqual([
      {
        id: expect.stringMatching(new RegExp(`^${rule.id}:\\d+:0$`)),
        rule_id: rule.id,
        transaction_ids: [rows[0], rows[2]].sort(),
        changes: { categoryId: { from: null, to: dining } },
      },
    ])
    expect(await runs(device.store.db, householdId)).toEqual(records)
    const why = await device.query.rules.applications({ transactionId: rows[2]! })
    expect(why.items).toMatchObject([{ ruleId: rule.id, transactionId: rows[2], trigger: 'manual' }])
    expect((await api.get(`${H}/rule-applications?transactionId=${rows[2]}`)).body.items).toEqual(why.items)
    // Applying a memo rule twice on the device adds the piece once.
    const tagLine = await device.mutate.rules.create({
      id: ulid(),
      name: 'Pizza memo',
      predicate: { combinator: 'all', conditions: [{ field: 'payee_name', op: 'contains', value: 'pizza' }] },
      action: { appendMemo: ' #pizza' },
    })
    expect((await device.mutate.rules.apply({ id: tagLine.id })).changedCount).toBe(2)
    expect((await device.mutate.rules.apply({ id: tagLine.id })).changedCount).toBe(0)
    await expectConverged(server, householdId, [device])
    expect((await classified(server.store.db, householdId, rows[0]!)).memo).toBe(' #pizza')
  })

  it('keeps the raw bank text and runs the pre-stage on a device import as the server does', async () => {
    const owner = await server.newOwner()
    const { api, householdId } = owner
    const account = (await api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' })).body.id
    const amazon = (await api.post(`${H}/payees`, { name: 'Amazon' })).body.id
    await api.post(`${H}/rules`, {
      name: 'Amazon',
      predicate: {
        combinator: 'all',
        conditions: [{ field: 'imported_payee', op: 'contains', value: 'amzn' }],
      },
      action: { setPayeeId: amazon },
    })
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    await device.sync.disconnect()
    const { items } = await device.mutate.transactions.bulkCreate({
      transactions: [
        {
          id: ulid(),
          accountId: account,
          date: '2025-05-01',
          amountCents: -999,
          payeeName: 'AMZN Mktp DE*1',
          importedId: 'd1',
        },
        {
          id: ulid(),
          accountId: account,
          date: '2025-05-02',
          amountCents: -450,
          payeeName: 'BAECKEREI 12',
          importedId: 'd2',
        },
      ],
    })
    expect(items.map((t) => [t.payeeId === amazon, t.importedPayee])).toEqual([
      [true, 'AMZN Mktp DE*1'],
      [false, 'BAECKEREI 12'],
    ])
    device.sync.connect()
    await device.sync.whenSynced()
    await expectConverged(server, householdId, [device])
    expect((await api.get(`${H}/transactions/${items[0]!.id}`)).body).toMatchObject({
      payeeId: amazon,
      importedPayee: 'AMZN Mktp DE*1',
    })
    expect(await device.query.transactions.get({ id: items[1]!.id })).toEqual(
      (await api.get(`${H}/transactions/${items[1]!.id}`)).body,
    )
  })
})
