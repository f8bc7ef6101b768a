import { describe, expect, it } from 'vitest'
import { amountBucket, CategoryModel, featuresOf, type LabelledSubject, words } from './category-model.ts'

const row = (
  categoryId: string,
  payeeId: string | null,
  memo: string | null,
  amountCents = -1000,
): LabelledSubject => ({
  categoryId,
  payeeId,
  payeeName: payeeId ? payeeId.toLowerCase() : null,
  memo,
  amountCents,
  accountId: 'acct',
})

describe('the category model', () => {
  it('reads words, amount buckets and features the same way every time', () => {
    expect(words('Weekly SHOP, weekly shop #12 at Rewe-Markt')).toEqual([
      'weekly',
      'shop',
      'at',
      'rewe',
      'markt',
    ])
    expect(amountBucket(-4599)).toBe('out:2')
    expect(amountBucket(120000)).toBe('in:4')
    expect(amountBucket(-99)).toBe('out:0')
    // One-letter words ("p", "a", "b") are dropped.
    expect(featuresOf(row('c', 'P', 'a b cd'))).toEqual([
      'payee:P',
      'payee:P',
      'memo:cd',
      'amount:out:2',
      'account:acct',
    ])
  })

  it('computes the worked example exactly', () => {
    // Two groceries rows with payee G, one fun row with payee F; a new row with payee G.
    const model = new CategoryModel([
      row('groceries', 'G', null),
      row('groceries', 'G', null),
      row('fun', 'F', null),
    ])
    // Features per row: payee twice, amount, account (the name "g" and "f" are one letter: dropped).
    // Vocabulary: payee:G, payee:F, amount:out:2, account:acct = 4.
    // groceries: 2/3 × (4+1)/(8+4) × (4+1)/12 × (2+1)/12 × (2+1)/12 = 2/3 × 225/20736
    // fun:       1/3 × (0+1)/(4+4) × 1/8 × (1+1)/8 × (1+1)/8       = 1/3 × 4/4096
    // share = 0.0072338 / (0.0072338 + 0.0003255) = 0.95696…, rounded down to 4 places.
    const guess = model.guess({
      payeeId: 'G',
      payeeName: null,
      memo: null,
      amountCents: -1000,
      accountId: 'acct',
    })
    expect(guess).toEqual({ categoryId: 'groceries', confidence: 0.9569 })
  })

  it('learns from memo words when the payee is new, and never answers a category it is told to skip', () => {
    const model = new CategoryModel([
      row('rent', 'LANDLORD', 'monthly rent flat'),
      row('rent', 'LANDLORD', 'rent march'),
      row('fun', 'CINEMA', 'movie night'),
      row('fun', 'CINEMA', 'movie'),
    ])
    const subject = {
      payeeId: 'NEW',
      payeeName: 'new',
      memo: 'movie with friends',
      amountCents: -1000,
      accountId: 'acct',
    }
    expect(model.guess(subject)?.categoryId).toBe('fun')
    expect(model.guess(subject, (c) => c !== 'fun')?.categoryId).toBe('rent')
    expect(model.guess(subject, () => false)).toBeUndefined()
  })

  it('does not depend on the order it learns in', () => {
    const rows = [row('a', 'X', 'one'), row('b', 'Y', 'two'), row('a', 'X', 'three'), row('b', 'X', 'two')]
    const subject = { payeeId: 'X', payeeName: 'x', memo: 'two', amountCents: -1000, accountId: 'acct' }
    expect(new CategoryModel(rows).guess(subject)).toEqual(
      new CategoryModel([...rows].reverse()).guess(subject),
    )
  })
})
