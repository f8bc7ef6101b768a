import { operations, SCOPES } from '@hearth/engine'
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
import { LEARN_AFTER, learnedRuleId } from './learn.ts'

const rules = operations.rules

async function setup() {
  const h = await ledgerHousehold()
  const account = (await newAccount(h)).id
  const groceries = await newCategory(h, 'Groceries')
  const dining = await newCategory(h, 'Dining')
  const rewe = await newPayee(h, 'REWE')
  const spend = (categoryId: string | null, date = '2024-03-10', payeeId = rewe) =>
    newTransaction(h, account, { payeeId, categoryId, date })
  return { h, account, groceries, dining, rewe, spend }
}

async function learned(h: LedgerHousehold, payeeId: string) {
  return (await h.read(rules.list, {})).items.find((r) => r.id === learnedRuleId(payeeId))
}

describe('learning categories', () => {
  it('makes a rule once a payee gets the same category three times, and the rule then categorizes', async () => {
    const { h, groceries, rewe, spend } = await setup()
    for (let i = 1; i < LEARN_AFTER; i++) await spend(groceries, `2024-03-0${i}`)
    expect(await learned(h, rewe)).toBeUndefined()
    await spend(groceries, '2024-03-05')
    expect(await learned(h, rewe)).toMatchObject({
      name: 'REWE (learned)',
      learned: true,
      enabled: true,
      priority: 2_147_483_647,
      predicate: { combinator: 'all', conditions: [{ field: 'payee_id', op: 'is', value: rewe }] },
      action: { setCategoryId: groceries },
    })
    expect((await outboxEvents(h)).filter((e) => e.type === 'rule.created')).toHaveLength(1)
    // A new row of the payee with no category gets it from the rule.
    expect((await spend(null, '2024-03-20')).categoryId).toBe(groceries)
  })

  it('needs three of the payee’s five latest categorized rows to agree', async () => {
    const { h, groceries, dining, rewe, spend } = await setup()
    await spend(groceries, '2024-03-01')
    await spend(dining, '2024-03-02')
    await spend(groceries, '2024-03-03')
    await spend(dining, '2024-03-04')
    expect(await learned(h, rewe)).toBeUndefined()
    await spend(dining, '2024-03-05')
    expect((await learned(h, rewe))?.action).toEqual({ setCategoryId: dining })
    // An older row is not among the five latest: three Groceries in all, two of them there.
    await spend(groceries, '2024-02-01')
    expect((await learned(h, rewe))?.action).toEqual({ setCategoryId: dining })
  })

  it('learns nothing the household’s rules already do, nor from bulk imports', async () => {
    const { h, account, groceries, rewe, spend } = await setup()
    await h.run(rules.create, {
      id: ulid(),
      name: 'REWE is groceries',
      predicate: { combinator: 'all', conditions: [{ field: 'payee_name', op: 'contains', value: 'rewe' }] },
      action: { setCategoryId: groceries },
    })
    for (let i = 0; i < 4; i++) await spend(groceries)
    expect(await learned(h, rewe)).toBeUndefined()

    const other = await newPayee(h, 'Aldi')
    await h.run(operations.transactions.bulkCreate, {
      transactions: Array.from({ length: 4 }, () => ({
        id: ulid(),
        accountId: account,
        date: '2024-03-10',
        amountCents: -500,
        payeeId: other,
        categoryId: groceries,
      })),
    })
    expect(await learned(h, other)).toBeUndefined()
  })

  it('moves a rule it learned to the category the payee’s rows now agree on', async () => {
    const { h, groceries, dining, rewe, spend } = await setup()
    for (let i = 1; i <= 3; i++) await spend(groceries, `2024-03-0${i}`)
    for (let i = 4; i <= 6; i++) await spend(dining, `2024-03-0${i}`)
    expect((await learned(h, rewe))?.action).toEqual({ setCategoryId: dining })
    expect((await learned(h, rewe))?.learned).toBe(true)
  })

  it('leaves a learned rule someone changed alone, and never remakes one someone deleted', async () => {
    const { h, groceries, dining, rewe, spend } = await setup()
    for (let i = 1; i <= 3; i++) await spend(groceries, `2024-03-0${i}`)
    const rule = (await learned(h, rewe))!
    await h.run(rules.update, { id: rule.id, name: 'My REWE rule' })
    for (let i = 4; i <= 7; i++) await spend(dining, `2024-03-0${i}`)
    expect(await learned(h, rewe)).toMatchObject({
      name: 'My REWE rule',
      learned: false,
      action: { setCategoryId: groceries },
    })

    const aldi = await newPayee(h, 'Aldi')
    for (let i = 1; i <= 3; i++) await spend(groceries, `2024-03-0${i}`, aldi)
    const aldiRule = (await learned(h, aldi))!
    await h.run(rules.delete, { id: aldiRule.id })
    for (let i = 4; i <= 8; i++) await spend(groceries, `2024-03-0${i}`, aldi)
    expect(await learned(h, aldi)).toBeUndefined()
  })

  it('counts an accepted suggestion and an update that sets a category', async () => {
    const { h, groceries, rewe, spend } = await setup()
    const a = await spend(null)
    await h.run(operations.transactions.suggestCategory, { id: a.id, categoryId: groceries, confidence: 0.9 })
    await h.run(operations.transactions.acceptSuggestion, { id: a.id })
    const b = await spend(null)
    await h.run(operations.transactions.update, { id: b.id, categoryId: groceries })
    expect(await learned(h, rewe)).toBeUndefined()
    const c = await spend(null)
    await h.run(operations.transactions.update, { id: c.id, categoryId: groceries })
    expect((await learned(h, rewe))?.action).toEqual({ setCategoryId: groceries })
  })

  it('learns the same whichever key categorized the rows, one that may not write rules included', async () => {
    const { h, groceries, rewe } = await setup()
    const scopes = SCOPES.filter((s) => s !== 'write:rules')
    for (let i = 0; i < 4; i++)
      await h.run(
        operations.transactions.create,
        {
          id: ulid(),
          accountId: (await newAccount(h)).id,
          payeeId: rewe,
          categoryId: groceries,
          date: '2024-03-10',
          amountCents: -100,
        },
        { scopes },
      )
    expect((await learned(h, rewe))?.action).toEqual({ setCategoryId: groceries })
  })
})
