import { operations, parseEvent } from '@hearth/engine'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import {
  ledgerHousehold,
  newAccount,
  newCategory,
  newFlag,
  newPayee,
  newTag,
  newTransaction,
} from '../ledger/test-fixture.ts'

describe('events in the outbox', () => {
  it('match the catalog: envelope and payload of every event a day of bookkeeping writes', async () => {
    const h = await ledgerHousehold()
    const { ctx, store } = h
    await h.run(operations.households.update, { name: 'Renamed' })
    const account = await newAccount(h, { openingBalanceCents: 50_000 })
    const savings = await newAccount(h, { name: 'Savings' })
    await h.run(operations.accounts.update, { id: savings.id, name: 'Rainy day' })
    await h.run(operations.accounts.reorder, { accountIds: [savings.id, account.id] })
    const categoryId = await newCategory(h)
    const payeeId = await newPayee(h, 'Grocer')
    const tagId = await newTag(h, 'Holiday')
    const flagId = await newFlag(h, 'Check')
    const row = await newTransaction(h, account.id, { payeeName: 'New corner shop', tagIds: [tagId] })
    await h.run(operations.transactions.update, { id: row.id, categoryId, payeeId, flagIds: [flagId] })
    await h.run(operations.transactions.transfer, {
      fromTransactionId: ulid(),
      toTransactionId: ulid(),
      fromAccountId: account.id,
      toAccountId: savings.id,
      date: '2024-03-11',
      amountCents: 2500,
    })
    await h.run(operations.transactions.delete, { id: row.id })
    await h.run(operations.exchangeRates.upsert, { fromCurrency: 'USD', toCurrency: 'EUR', rate: '0.92' })
    await h.run(operations.exchangeRates.delete, { fromCurrency: 'USD', toCurrency: 'EUR' })
    await h.run(operations.accounts.reconcile, {
      id: account.id,
      statementBalanceCents: 40_000,
      statementDate: '2024-03-31',
      adjustmentId: ulid(),
    })
    await h.run(operations.accounts.close, { id: savings.id, adjustmentId: ulid() })
    await h.run(operations.accounts.reopen, { id: savings.id })
    await h.run(operations.tags.update, { id: tagId, name: 'Trip' })
    await h.run(operations.payees.delete, { id: payeeId })
    await h.run(operations.categories.delete, { id: categoryId })

    const rows = await store.db
      .selectFrom('outbox')
      .select('payload')
      .where('household_id', '=', ctx.householdId)
      .where('topic', '=', 'event')
      .orderBy('id')
      .execute()
    const events = rows.map((r) => parseEvent(r.payload))
    expect(events.every((e) => e.householdId === ctx.householdId)).toBe(true)
    expect(new Set(events.map((e) => e.type))).toEqual(
      new Set([
        'household.created',
        'household.updated',
        'account.created',
        'account.updated',
        'account.reordered',
        'account.reconciled',
        'account.closed',
        'account.reopened',
        'transaction.created',
        'transaction.updated',
        'transaction.deleted',
        'budget.overrun',
        'exchangeRate.updated',
        'exchangeRate.deleted',
        'categoryGroup.created',
        'category.created',
        'category.deleted',
        'payee.created',
        'payee.deleted',
        'tag.created',
        'tag.updated',
        'flag.created',
      ]),
    )
    const versions = events.map((e) => e.version ?? 0)
    expect(versions).toEqual([...versions].sort((a, b) => a - b))
  })
})
