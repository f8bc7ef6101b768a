import { ulid } from 'ulidx'
import { afterEach, describe, expect, it } from 'vitest'
import { newOwner, useTestServer } from '../src/index.ts'
import { closeDevices, eventually, expectConverged, newDevice } from './devices.ts'

const server = useTestServer()
afterEach(async () => {
  await closeDevices()
})

const H = '/households/current'

describe('payees through the SDK', () => {
  it('answers the page, alias and near-duplicate queries on the device as REST does', async () => {
    const owner = await newOwner(server)
    const { api } = owner
    const group = (await api.post(`${H}/category-groups`, { name: 'G' })).body
    const food = (await api.post(`${H}/categories`, { groupId: group.id, name: 'Food' })).body
    const ids: Record<string, string> = {}
    const id = (name: string) => ids[name]!
    for (const name of [
      'Amazon Marketplace',
      'AMAZON MKTPLACE',
      'Amazing Pizza',
      'Amazon',
      'Bakery',
      'Netflix',
    ]) {
      ids[name] = (
        await api.post(`${H}/payees`, { name, ...(name === 'Bakery' && { categoryId: food.id }) })
      ).body.id
    }
    await api.post(`${H}/payees/${ids.Amazon}/aliases`, { name: 'AMZN Mktp US' })
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()

    const rest = async (path: string) => (await api.get(`${H}${path}`)).body
    expect(await device.query.payees.page({})).toEqual(await rest('/payees/page'))
    expect(await device.query.payees.page({ sort: 'nameDesc', pageSize: 10, page: 1, q: 'amaz' })).toEqual(
      await rest('/payees/page?sort=nameDesc&pageSize=10&page=1&q=amaz'),
    )
    expect(await device.query.payees.page({ segment: 'noCategory' })).toEqual(
      await rest('/payees/page?segment=noCategory'),
    )
    expect(await device.query.payees.page({ categoryId: food.id })).toEqual(
      await rest(`/payees/page?categoryId=${food.id}`),
    )
    const groups = await device.query.payees.duplicateGroups({})
    expect(groups).toEqual(await rest('/payees/duplicate-groups'))
    expect(groups.items.map((g) => g.payees.map((p) => p.name))).toEqual([
      ['Amazon Marketplace', 'AMAZON MKTPLACE'],
    ])
    expect(await device.query.payees.dedupeCandidates({ id: id('Amazon Marketplace') })).toEqual(
      await rest(`/payees/${ids['Amazon Marketplace']}/dedupe-candidates`),
    )
    expect(await device.query.payees.listAliases({ id: id('Amazon') })).toEqual(
      await rest(`/payees/${ids.Amazon}/aliases`),
    )
    await expect(device.query.payees.page({ pageSize: 20 })).rejects.toMatchObject({ status: 400 })
  })

  it('adds an alias, imports by it, merges and unmerges offline, and the server reaches the same rows', async () => {
    const owner = await newOwner(server)
    const { api } = owner
    const account = (await api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' })).body
    const target = (await api.post(`${H}/payees`, { name: 'Amazon Marketplace' })).body
    const source = (await api.post(`${H}/payees`, { name: 'AMAZON MKTPLACE' })).body
    await api.post(`${H}/transactions`, {
      accountId: account.id,
      date: '2025-03-01',
      amountCents: -100,
      payeeId: source.id,
    })
    const rule = (
      await api.post(`${H}/rules`, {
        name: 'Amazon memo',
        predicate: { combinator: 'all', conditions: [{ field: 'payee_id', op: 'is', value: source.id }] },
        action: { appendMemo: ' (amazon)' },
      })
    ).body
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    await device.sync.disconnect()

    const alias = await device.mutate.payees.createAlias({
      payeeId: target.id,
      id: ulid(),
      name: 'AMZN Mktp US',
    })
    const row = await device.mutate.transactions.create({
      accountId: account.id,
      date: '2025-03-02',
      amountCents: -250,
      payeeName: 'AMZN MKTP US',
    })
    expect(row.payeeId).toBe(target.id)
    // A pattern alias made offline catches every store number on the device as on the server.
    await device.mutate.payees.createAlias({
      payeeId: target.id,
      id: ulid(),
      name: 'AMZN MKTP',
      match: 'startsWith',
    })
    const byPattern = await device.mutate.transactions.create({
      accountId: account.id,
      date: '2025-03-02',
      amountCents: -300,
      payeeName: 'AMZN Mktp US*2K4LM',
    })
    expect(byPattern.payeeId).toBe(target.id)
    const { merge } = await device.mutate.payees.merge({
      id: source.id,
      targetPayeeId: target.id,
      mergeId: ulid(),
    })
    expect(merge.transactionIds).toHaveLength(1)
    device.sync.connect()
    await device.sync.whenSynced()
    await expectConverged(server, owner.householdId, [device])
    const serverAliases = (await api.get(`${H}/payees/${target.id}/aliases`)).body
    expect(serverAliases.items.map((a: any) => a.id)).toContain(alias.id)
    expect((await api.get(`${H}/transactions/${row.id}`)).body.payeeId).toBe(target.id)
    expect((await api.get(`${H}/payees/${source.id}`)).body).toMatchObject({
      status: 404,
      code: 'PAYEE_MERGED',
      mergedInto: target.id,
    })
    await expect(device.query.payees.get({ id: source.id })).rejects.toMatchObject({
      status: 404,
      code: 'PAYEE_MERGED',
      extra: { mergedInto: target.id },
    })
    expect((await api.get(`${H}/transactions/${byPattern.id}`)).body.payeeId).toBe(target.id)
    // The rule that named the source names the target, on the device as on the server.
    const serverRule = (await api.get(`${H}/rules/${rule.id}`)).body
    expect(serverRule.predicate.conditions[0].value).toBe(target.id)
    expect((await device.query.rules.list({})).items).toEqual([serverRule])

    await device.mutate.payees.unmerge({ id: source.id })
    await device.sync.whenSynced()
    await expectConverged(server, owner.householdId, [device])
    await eventually(async () => expect((await api.get(`${H}/payees/${source.id}`)).status).toBe(200))
    expect(await device.query.payees.listMerges({ id: source.id })).toEqual(
      (await api.get(`${H}/payees/${source.id}/merges`)).body,
    )
  })

  it('suggests the same category with the same confidence on the device as the server does', async () => {
    const owner = await newOwner(server)
    const { api } = owner
    const account = (await api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' })).body
    const group = (await api.post(`${H}/category-groups`, { name: 'G' })).body
    const food = (await api.post(`${H}/categories`, { groupId: group.id, name: 'Food' })).body
    const fun = (await api.post(`${H}/categories`, { groupId: group.id, name: 'Fun' })).body
    for (let i = 0; i < 4; i++) {
      for (const [payeeName, categoryId, memo] of [
        ['Bakery', food.id, 'bread'],
        ['Cinema', fun.id, 'movie night'],
      ]) {
        await api.post(`${H}/transactions`, {
          accountId: account.id,
          date: `2025-03-0${i + 1}`,
          amountCents: -700,
          payeeName,
          categoryId,
          memo,
        })
      }
    }
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    await device.sync.disconnect()
    const offline = await device.mutate.transactions.create({
      accountId: account.id,
      date: '2025-03-09',
      amountCents: -650,
      payeeName: 'Odeon',
      memo: 'Movie with friends',
    })
    expect(offline.suggestedCategoryId).toBe(fun.id)
    device.sync.connect()
    await device.sync.whenSynced()
    await expectConverged(server, owner.householdId, [device])
    const onServer = (await api.get(`${H}/transactions/${offline.id}`)).body
    expect(onServer).toMatchObject({
      suggestedCategoryId: offline.suggestedCategoryId,
      suggestionConfidence: offline.suggestionConfidence,
      suggestionReason: offline.suggestionReason,
    })
  })
})
