import { operations } from '@hearth/engine'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import {
  type LedgerHousehold,
  ledgerHousehold,
  newAccount,
  newCategory,
  newPayee,
  newTransaction,
  outboxEvents,
} from '../ledger/test-fixture.ts'

/** Every row a merge may touch, as stored, in a fixed order: the before and after of a merge walk. */
async function snapshot(h: LedgerHousehold) {
  const householdId = h.ctx.householdId
  const db = h.store.db
  return {
    payees: await db
      .selectFrom('payees')
      .selectAll()
      .where('household_id', '=', householdId)
      .orderBy('id')
      .execute(),
    aliases: await db
      .selectFrom('payee_aliases')
      .selectAll()
      .where('household_id', '=', householdId)
      .orderBy('id')
      .execute(),
    transactions: await db
      .selectFrom('transactions')
      .selectAll()
      .where('household_id', '=', householdId)
      .orderBy('id')
      .execute(),
    splits: await db
      .selectFrom('transaction_splits')
      .selectAll()
      .where('household_id', '=', householdId)
      .orderBy('id')
      .execute(),
    accounts: await db
      .selectFrom('accounts')
      .selectAll()
      .where('household_id', '=', householdId)
      .orderBy('id')
      .execute(),
  }
}

const later = (h: LedgerHousehold, minutes: number) => ({
  now: new Date(h.ctx.now.getTime() + minutes * 60_000),
})

describe('payee aliases', () => {
  it('deduplicates by normalized form and refuses a spelling that means another payee', async () => {
    const h = await ledgerHousehold()
    const amazon = await newPayee(h, 'Amazon')
    const other = await newPayee(h, 'Other')
    const alias = await h.run(operations.payees.createAlias, {
      payeeId: amazon,
      id: ulid(),
      name: 'AMZN Mktp US',
    })
    expect(alias).toMatchObject({ payeeId: amazon, name: 'AMZN Mktp US', normalizedName: 'amzn mktp us' })
    // The same spelling again, differently cased and punctuated: the alias already there.
    expect(
      await h.run(operations.payees.createAlias, { payeeId: amazon, id: ulid(), name: 'amzn*mktp us' }),
    ).toEqual(alias)
    await expect(
      h.run(operations.payees.createAlias, { payeeId: other, id: ulid(), name: 'AMZN MKTP US' }),
    ).rejects.toMatchObject({
      status: 409,
      code: 'PAYEE_ALIAS_TAKEN',
      extra: { payeeId: amazon, aliasId: alias.id },
    })
    await expect(
      h.run(operations.payees.createAlias, { payeeId: other, id: ulid(), name: 'AMAZON' }),
    ).rejects.toMatchObject({ status: 409, code: 'PAYEE_ALIAS_TAKEN', extra: { payeeId: amazon } })
    await expect(
      h.run(operations.payees.createAlias, { payeeId: amazon, id: ulid(), name: 'amazon' }),
    ).rejects.toMatchObject({ status: 409, code: 'PAYEE_ALIAS_TAKEN' })
    await expect(
      h.run(operations.payees.createAlias, { payeeId: ulid(), id: ulid(), name: 'x' }),
    ).rejects.toMatchObject({ status: 404 })
    expect((await h.read(operations.payees.listAliases, { id: amazon })).items).toEqual([alias])

    await h.run(operations.payees.deleteAlias, { payeeId: amazon, id: alias.id })
    expect((await h.read(operations.payees.listAliases, { id: amazon })).items).toEqual([])
    await expect(
      h.run(operations.payees.deleteAlias, { payeeId: amazon, id: alias.id }),
    ).rejects.toMatchObject({
      status: 404,
    })
    // Free again once deleted, for any payee.
    expect(
      (await h.run(operations.payees.createAlias, { payeeId: other, id: ulid(), name: 'AMZN MKTP US' }))
        .payeeId,
    ).toBe(other)
  })

  it('attributes a created, imported or updated row named by an alias to its payee, making no new payee', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const amazon = await newPayee(h, 'Amazon')
    await h.run(operations.payees.createAlias, { payeeId: amazon, id: ulid(), name: 'AMZN Mktp US' })
    const created = await newTransaction(h, account.id, { payeeName: 'AMZN MKTP US' })
    expect(created.payeeId).toBe(amazon)
    const { items: imported } = await h.run(operations.transactions.bulkCreate, {
      transactions: [
        {
          id: ulid(),
          accountId: account.id,
          date: '2024-03-11',
          amountCents: -500,
          payeeName: 'amzn mktp us',
          importedId: 'b1',
        },
        {
          id: ulid(),
          accountId: account.id,
          date: '2024-03-12',
          amountCents: -700,
          payeeName: 'AMZN*Mktp*US',
          importedId: 'b2',
        },
        {
          id: ulid(),
          accountId: account.id,
          date: '2024-03-12',
          amountCents: -900,
          payeeName: 'Fresh Shop',
          importedId: 'b3',
        },
      ],
    })
    expect(imported.map((t) => t.payeeId)).toEqual([amazon, amazon, expect.any(String)])
    const plain = await newTransaction(h, account.id, { payeeName: 'Somewhere' })
    const updated = await h.run(operations.transactions.update, { id: plain.id, payeeName: 'AMZN MKTP US' })
    expect(updated.payeeId).toBe(amazon)
    const names = (await h.read(operations.payees.list, {})).items.map((p) => p.name)
    expect(names).toEqual(['Amazon', 'Fresh Shop', 'Somewhere'])
  })

  it('lets a live payee of that very name win over an alias', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const amazon = await newPayee(h, 'Amazon')
    await h.run(operations.payees.createAlias, { payeeId: amazon, id: ulid(), name: 'AMZN' })
    const amzn = await newPayee(h, 'Amzn')
    expect((await newTransaction(h, account.id, { payeeName: 'AMZN' })).payeeId).toBe(amzn)
  })
})

describe('payee merge and unmerge', () => {
  it('moves exactly the source rows and aliases, and unmerge restores every row as it was', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const food = await newCategory(h)
    const amazon = await newPayee(h, 'Amazon Marketplace')
    const mktp = await newPayee(h, 'AMAZON MKTPLACE')
    const bystander = await newPayee(h, 'Bakery')
    await h.run(operations.payees.createAlias, { payeeId: mktp, id: ulid(), name: 'AMZN MKTP' })
    const dup = await h.run(operations.payees.createAlias, { payeeId: mktp, id: ulid(), name: 'amzn prime' })
    await h.run(operations.payees.createAlias, { payeeId: amazon, id: ulid(), name: 'AMZN Marketplace' })
    // The target's name changes to a spelling the source has as an alias, so that alias is dropped.
    await h.run(operations.payees.update, { id: amazon, name: 'AMZN Prime' })
    const moved = [
      await newTransaction(h, account.id, { payeeId: mktp, categoryId: food }),
      await newTransaction(h, account.id, { payeeId: mktp }),
    ]
    const gone = await newTransaction(h, account.id, { payeeId: mktp })
    await h.run(operations.transactions.delete, { id: gone.id })
    const split = await newTransaction(h, account.id, {
      payeeId: bystander,
      amountCents: -1000,
      splits: [
        { amountCents: -600, categoryId: food, payeeId: mktp },
        { amountCents: -400, categoryId: food },
      ],
    })
    const stays = await newTransaction(h, account.id, { payeeId: amazon })
    const before = await snapshot(h)

    const mergeId = ulid()
    const { merge, target } = await h.run(
      operations.payees.merge,
      { id: mktp, targetPayeeId: amazon, mergeId },
      later(h, 1),
    )
    expect(target.id).toBe(amazon)
    expect(merge).toMatchObject({
      id: mergeId,
      sourcePayeeId: mktp,
      targetPayeeId: amazon,
      transactionIds: [...moved.map((t) => t.id), gone.id].sort(),
      splitIds: [split.splits[0]!.id],
      droppedAliasIds: [dup.id],
      createdAliasId: expect.any(String),
      unmergedAt: null,
    })
    expect(merge.movedAliasIds).toHaveLength(1)
    const during = await snapshot(h)
    expect(during.transactions.filter((t) => t.payee_id === mktp)).toEqual([])
    expect(during.transactions.find((t) => t.id === stays.id)).toEqual(
      before.transactions.find((t) => t.id === stays.id),
    )
    expect(during.payees.find((p) => p.id === mktp)!.deleted_at).not.toBeNull()
    expect((await h.read(operations.payees.listAliases, { id: amazon })).items.map((a) => a.name)).toEqual([
      'AMAZON MKTPLACE',
      'AMZN Marketplace',
      'AMZN MKTP',
    ])
    // Balances are untouched: a payee is not money.
    expect(during.accounts).toEqual(before.accounts)
    const undone = await h.run(operations.payees.unmerge, { id: mktp }, later(h, 3))
    expect(undone.skippedTransactionIds).toEqual([])
    expect(undone.payee.id).toBe(mktp)
    expect(undone.merge.unmergedAt).not.toBeNull()
    expect(await snapshot(h)).toEqual(before)
    await expect(h.run(operations.payees.unmerge, { id: mktp })).rejects.toMatchObject({
      status: 409,
      code: 'PAYEE_NOT_MERGED',
    })
    const events = (await outboxEvents(h)).map((e) => e.type)
    expect(events).toContain('payee.merged')
    expect(events).toContain('payee.unmerged')
  })

  it('sends a row named like the merged payee to the target, through the alias its name became', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const amazon = await newPayee(h, 'Amazon Marketplace')
    const mktp = await newPayee(h, 'AMAZON MKTPLACE')
    await h.run(operations.payees.merge, { id: mktp, targetPayeeId: amazon, mergeId: ulid() })
    expect((await newTransaction(h, account.id, { payeeName: 'Amazon Mktplace' })).payeeId).toBe(amazon)
    expect((await h.read(operations.payees.list, {})).items.map((p) => p.id)).toEqual([amazon])
  })

  it('points rules that name the source at the target, and unmerge puts back those nobody changed since', async () => {
    const h = await ledgerHousehold()
    const a = await newPayee(h, 'Alpha')
    const b = await newPayee(h, 'Beta')
    const c = await newPayee(h, 'Gamma')
    const food = await newCategory(h, 'Food')
    const rule = (name: string, predicate: unknown, action: unknown) =>
      h.run(operations.rules.create, { id: ulid(), name, predicate, action })
    const is = await rule(
      'is',
      { combinator: 'all', conditions: [{ field: 'payee_id', op: 'is', value: a }] },
      { setCategoryId: food },
    )
    const oneOf = await rule(
      'one of',
      { combinator: 'all', conditions: [{ field: 'payee_id', op: 'oneOf', value: [a, b, c] }] },
      { setCategoryId: food },
    )
    const sets = await rule(
      'sets',
      { combinator: 'all', conditions: [{ field: 'memo', op: 'contains', value: 'alpha' }] },
      { setPayeeId: a },
    )
    const other = await rule(
      'other',
      { combinator: 'all', conditions: [{ field: 'payee_id', op: 'is', value: c }] },
      { setCategoryId: food },
    )
    const before = (await h.read(operations.rules.list, {})).items
    await h.run(operations.payees.merge, { id: a, targetPayeeId: b, mergeId: ulid() }, later(h, 1))
    const byId = async () => new Map((await h.read(operations.rules.list, {})).items.map((r) => [r.id, r]))
    const merged = await byId()
    expect(merged.get(is.id)!.predicate.conditions).toEqual([{ field: 'payee_id', op: 'is', value: b }])
    expect(merged.get(oneOf.id)!.predicate.conditions).toEqual([
      { field: 'payee_id', op: 'oneOf', value: [b, c] },
    ])
    expect(merged.get(sets.id)!.action).toEqual({ setPayeeId: b })
    expect(merged.get(other.id)).toEqual(before.find((r) => r.id === other.id))

    // A rule edited after the merge is the household's: it stays as edited.
    await h.run(operations.rules.update, { id: sets.id, name: 'sets, edited' }, later(h, 2))
    await h.run(operations.payees.unmerge, { id: a }, later(h, 3))
    const back = await byId()
    for (const r of [is, oneOf, other]) expect(back.get(r.id)).toEqual(before.find((x) => x.id === r.id))
    expect(back.get(sets.id)).toMatchObject({ name: 'sets, edited', action: { setPayeeId: b } })
  })

  it('leaves a row whose payee changed after the merge where it is', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const a = await newPayee(h, 'Alpha')
    const b = await newPayee(h, 'Beta')
    const c = await newPayee(h, 'Gamma')
    const one = await newTransaction(h, account.id, { payeeId: a })
    const two = await newTransaction(h, account.id, { payeeId: a })
    await h.run(operations.payees.merge, { id: a, targetPayeeId: b, mergeId: ulid() }, later(h, 1))
    await h.run(operations.transactions.update, { id: two.id, payeeId: c }, later(h, 2))
    const memo = await h.run(operations.transactions.update, { id: one.id, memo: 'edited' }, later(h, 3))
    const { skippedTransactionIds } = await h.run(operations.payees.unmerge, { id: a }, later(h, 4))
    expect(skippedTransactionIds).toEqual([two.id])
    const back = await h.read(operations.transactions.get, { id: one.id })
    expect(back.payeeId).toBe(a)
    // Edited since the merge: its updatedAt is the unmerge's, not the one from before.
    expect(back.updatedAt).not.toBe(memo.updatedAt)
    expect(back.updatedAt).toBe(later(h, 4).now.toISOString())
    expect((await h.read(operations.transactions.get, { id: two.id })).payeeId).toBe(c)
  })

  it('refuses a merge into itself, a missing target, a chained unmerge and a taken name', async () => {
    const h = await ledgerHousehold()
    const a = await newPayee(h, 'Alpha')
    const b = await newPayee(h, 'Beta')
    const c = await newPayee(h, 'Gamma')
    await expect(
      h.run(operations.payees.merge, { id: a, targetPayeeId: a, mergeId: ulid() }),
    ).rejects.toMatchObject({
      status: 400,
      errors: [{ path: 'targetPayeeId' }],
    })
    await expect(
      h.run(operations.payees.merge, { id: a, targetPayeeId: ulid(), mergeId: ulid() }),
    ).rejects.toMatchObject({
      status: 404,
    })
    await h.run(operations.payees.merge, { id: a, targetPayeeId: b, mergeId: ulid() })
    await expect(
      h.run(operations.payees.merge, { id: a, targetPayeeId: c, mergeId: ulid() }),
    ).rejects.toMatchObject({
      status: 404,
    })
    await h.run(operations.payees.merge, { id: b, targetPayeeId: c, mergeId: ulid() })
    await expect(h.run(operations.payees.unmerge, { id: a })).rejects.toMatchObject({
      status: 409,
      code: 'PAYEE_MERGE_CHAINED',
    })
    await h.run(operations.payees.unmerge, { id: b })
    await h.run(operations.payees.update, { id: c, name: 'Gamma' })
    const alpha2 = await newPayee(h, 'ALPHA')
    await expect(h.run(operations.payees.unmerge, { id: a })).rejects.toMatchObject({
      status: 409,
      code: 'PAYEE_NAME_TAKEN',
      extra: { payeeId: alpha2 },
    })
    await h.run(operations.payees.delete, { id: alpha2 })
    expect((await h.run(operations.payees.unmerge, { id: a })).payee.name).toBe('Alpha')
    const merges = await h.read(operations.payees.listMerges, { id: b })
    expect(merges.items).toHaveLength(2)
    expect(merges.items.every((m) => m.unmergedAt !== null)).toBe(true)
  })
})
