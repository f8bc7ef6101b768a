import { operations } from '@hearth/engine'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { ledgerHousehold, newAccount, newCategory, newPayee } from '../ledger/test-fixture.ts'

const rules = operations.rules

describe('the bank’s raw text and the pre-stage', () => {
  it('keeps the raw text beside the final payee, and a rule on it names the payee before clean-up', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const amazon = await newPayee(h, 'Amazon')
    const shopping = await newCategory(h, 'Shopping')
    const rename = await h.run(rules.create, {
      id: ulid(),
      name: 'Amazon',
      predicate: {
        combinator: 'all',
        conditions: [{ field: 'imported_payee', op: 'matches', value: '^amzn' }],
      },
      action: { setPayeeId: amazon, setCategoryId: shopping },
    })
    const { items } = await h.run(operations.transactions.bulkCreate, {
      transactions: [
        {
          id: ulid(),
          accountId: account.id,
          date: '2024-03-11',
          amountCents: -1299,
          payeeName: 'AMZN Mktp US*2K4LM',
          importedId: 'f1',
        },
        {
          id: ulid(),
          accountId: account.id,
          date: '2024-03-12',
          amountCents: -450,
          payeeName: 'REWE SAGT DANKE 4411',
          importedId: 'f2',
        },
        {
          id: ulid(),
          accountId: account.id,
          date: '2024-03-12',
          amountCents: -800,
          payeeName: 'Corner Shop',
        },
      ],
    })
    expect(items.map((t) => [t.importedPayee, t.payeeId === amazon, t.categoryId])).toEqual([
      ['AMZN Mktp US*2K4LM', true, shopping],
      ['REWE SAGT DANKE 4411', false, null],
      [null, false, null],
    ])
    expect((await h.read(operations.transactions.get, { id: items[0]!.id })).importedPayee).toBe(
      'AMZN Mktp US*2K4LM',
    )
    // No payee was made of the raw Amazon text: the pre-stage decided it first.
    const names = (await h.read(operations.payees.list, {})).items.map((p) => p.name)
    expect(names).not.toContain('AMZN Mktp US*2K4LM')
    expect(names).toContain('REWE SAGT DANKE 4411')
    // One record for the rule, holding both its changes.
    const why = await h.read(rules.applications, { transactionId: items[0]!.id })
    expect(why.items).toMatchObject([
      {
        ruleId: rename.id,
        changes: { payeeId: { from: null, to: amazon }, categoryId: { from: null, to: shopping } },
      },
    ])
  })

  it('matches the raw text in a back-fill after the payee was renamed, and takes an explicit importedPayee', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const fuel = await newCategory(h, 'Fuel')
    const { items } = await h.run(operations.transactions.bulkCreate, {
      transactions: [
        {
          id: ulid(),
          accountId: account.id,
          date: '2024-03-11',
          amountCents: -5000,
          payeeName: 'Shell',
          importedPayee: 'SHELL OIL 57442 SAN FRANCISCO CA',
          importedId: 's1',
        },
      ],
    })
    expect(items[0]).toMatchObject({ importedPayee: 'SHELL OIL 57442 SAN FRANCISCO CA' })
    const rule = await h.run(rules.create, {
      id: ulid(),
      name: 'Fuel',
      predicate: {
        combinator: 'all',
        conditions: [{ field: 'imported_payee', op: 'contains', value: 'shell oil' }],
      },
      action: { setCategoryId: fuel },
      enabled: false,
    })
    const applied = await h.run(rules.apply, { id: rule.id })
    expect(applied.items.map((i) => i.transactionId)).toEqual([items[0]!.id])
  })
})
