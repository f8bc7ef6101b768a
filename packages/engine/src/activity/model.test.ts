import { describe, expect, it } from 'vitest'
import { describeChange, formatMoney, summarize } from './model.ts'

describe('an activity entry as it reads', () => {
  it('formats cents exactly in the currency', () => {
    expect(formatMoney('-125000', 'USD')).toBe('-$1,250.00')
    expect(formatMoney('5', 'EUR')).toBe('€0.05')
    expect(formatMoney('123456789012345678', 'USD')).toBe('$1,234,567,890,123,456.78')
  })

  it('names a referenced row where its name is known, and keeps the id where it is not', () => {
    const names = new Map([
      ['acc1', 'Joint checking'],
      ['cat1', 'Groceries'],
      ['cat2', 'Dining out'],
    ])
    const created = describeChange(
      {
        table: 'transactions',
        rowId: 'txn1',
        before: null,
        after: { account_id: 'acc1', payee_id: 'pay9', category_id: 'cat1', amount_cents: -1550 },
      },
      'USD',
      names,
    )
    expect(created.fields.map((f) => f.text)).toEqual([
      'account "Joint checking"',
      'payee "pay9"',
      'category "Groceries"',
      'amountCents -$15.50',
    ])
    // The API's values stay the ids and cents as strings.
    expect(created.fields[0]).toMatchObject({ field: 'accountId', before: null, after: 'acc1' })
    expect(created.fields[3]).toMatchObject({ field: 'amountCents', after: '-1550' })

    const moved = describeChange(
      {
        table: 'transactions',
        rowId: 'txn1',
        before: { category_id: 'cat1', memo: 'bread' },
        after: { category_id: 'cat2', memo: 'bread' },
      },
      'USD',
      names,
    )
    expect(moved.action).toBe('updated')
    expect(summarize('transactions.update', [moved])).toBe(
      'updated transaction: category "Groceries" → "Dining out"',
    )
  })

  it('leaves out bookkeeping and secrets, and says what a deletion was', () => {
    const deleted = describeChange(
      {
        table: 'webhooks',
        rowId: 'w1',
        before: { url: 'https://example.com/h', secret: 'whsec_x', updated_at: 'then', deleted_at: null },
        after: { url: 'https://example.com/h', secret: 'whsec_y', updated_at: 'now', deleted_at: 'now' },
      },
      'USD',
    )
    expect(deleted.action).toBe('deleted')
    expect(deleted.fields.map((f) => f.field)).toEqual(['deletedAt'])
    expect(summarize('webhooks.delete', [deleted])).toBe('deleted webhook')
    expect(summarize('budgets.recalculate', [])).toBe('budgets.recalculate (no household rows changed)')
  })
})
