import { operations } from '@hearth/engine'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { ledgerHousehold, newAccount, newPayee } from '../ledger/test-fixture.ts'

const imported = (accountId: string, payeeName: string, n: number) => ({
  id: ulid(),
  accountId,
  date: '2024-03-11',
  amountCents: -500 - n,
  payeeName,
  importedId: `p${n}`,
})

describe('pattern aliases', () => {
  it('one starts-with alias catches every store number of a merchant, in whole words', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const starbucks = await newPayee(h, 'Starbucks')
    const alias = await h.run(operations.payees.createAlias, {
      payeeId: starbucks,
      id: ulid(),
      name: 'STARBUCKS',
      match: 'startsWith',
    })
    expect(alias).toMatchObject({ match: 'startsWith', normalizedName: 'starbucks' })
    const { items } = await h.run(operations.transactions.bulkCreate, {
      transactions: [
        imported(account.id, 'STARBUCKS #1234', 1),
        imported(account.id, 'STARBUCKS #5678 SEATTLE WA', 2),
        imported(account.id, 'STARBUCKSY TEA', 3),
      ],
    })
    expect(items.map((t) => t.payeeId)).toEqual([starbucks, starbucks, expect.any(String)])
    expect(items[2]!.payeeId).not.toBe(starbucks)
    // The same pattern again answers the alias; the same text as an exact spelling is another alias.
    expect(
      await h.run(operations.payees.createAlias, {
        payeeId: starbucks,
        id: ulid(),
        name: 'Starbucks',
        match: 'startsWith',
      }),
    ).toEqual(alias)
    const other = await newPayee(h, 'Other')
    await expect(
      h.run(operations.payees.createAlias, {
        payeeId: other,
        id: ulid(),
        name: 'starbucks',
        match: 'startsWith',
      }),
    ).rejects.toMatchObject({ status: 409, code: 'PAYEE_ALIAS_TAKEN', extra: { payeeId: starbucks } })
  })

  it('contains and regex aliases, an exact alias winning over a pattern, and RE2’s guard on the regex', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const amazon = await newPayee(h, 'Amazon')
    const prime = await newPayee(h, 'Prime Video')
    await h.run(operations.payees.createAlias, {
      payeeId: amazon,
      id: ulid(),
      name: 'mktp',
      match: 'contains',
    })
    await h.run(operations.payees.createAlias, {
      payeeId: amazon,
      id: ulid(),
      name: '^amzn( |$)',
      match: 'regex',
    })
    await h.run(operations.payees.createAlias, { payeeId: prime, id: ulid(), name: 'AMZN Prime Video' })
    const { items } = await h.run(operations.transactions.bulkCreate, {
      transactions: [
        imported(account.id, 'AMAZON MKTP US*2K4', 1),
        imported(account.id, 'AMZN Digital*RT55', 2),
        imported(account.id, 'amzn prime video', 3),
        imported(account.id, 'AMZNX', 4),
      ],
    })
    expect(items.slice(0, 3).map((t) => t.payeeId)).toEqual([amazon, amazon, prime])
    expect(items[3]!.payeeId).not.toBe(amazon)
    await expect(
      h.run(operations.payees.createAlias, { payeeId: amazon, id: ulid(), name: '(a)\\1', match: 'regex' }),
    ).rejects.toMatchObject({ status: 400, errors: [expect.objectContaining({ path: 'name' })] })
  })
})

describe('a merged payee', () => {
  it('answers where it went, through later merges, and a plain 404 once unmerged and deleted', async () => {
    const h = await ledgerHousehold()
    const a = await newPayee(h, 'Starbucks Seattle')
    const b = await newPayee(h, 'Starbucks')
    const c = await newPayee(h, 'Starbucks Coffee Company')
    await h.run(operations.payees.merge, { id: a, targetPayeeId: b, mergeId: ulid() })
    await expect(h.read(operations.payees.get, { id: a })).rejects.toMatchObject({
      status: 404,
      code: 'PAYEE_MERGED',
      extra: { mergedInto: b },
    })
    await h.run(operations.payees.merge, { id: b, targetPayeeId: c, mergeId: ulid() })
    await expect(h.read(operations.payees.get, { id: a })).rejects.toMatchObject({
      code: 'PAYEE_MERGED',
      extra: { mergedInto: c },
    })
    await h.run(operations.payees.delete, { id: c })
    await expect(h.read(operations.payees.get, { id: a })).rejects.toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
    })
    await expect(h.read(operations.payees.get, { id: ulid() })).rejects.toMatchObject({ code: 'NOT_FOUND' })
  })
})
