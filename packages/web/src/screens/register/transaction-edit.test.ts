import { describe, expect, it } from 'vitest'
import { type EditedFields, transactionEdit } from './transaction-edit.ts'

const row: EditedFields = {
  date: '2026-11-03',
  amountCents: '-4500',
  payeeName: 'Bakery',
  categoryId: 'cat-groceries',
  memo: 'bread',
  status: 'cleared',
  tagIds: ['tag-a', 'tag-b'],
  splits: [],
}

describe('the update a register edit sends', () => {
  it('is the amount alone when only the amount changed: the payee, tags and splits are not sent again', () => {
    expect(transactionEdit('t1', row, { ...row, amountCents: '-5000' })).toEqual({
      id: 't1',
      amountCents: '-5000',
    })
  })

  it('is nothing when nothing changed, tags in another order included', () => {
    expect(transactionEdit('t1', row, { ...row, tagIds: ['tag-b', 'tag-a'] })).toBeNull()
  })

  it('names a new payee by name, and clears one with a null id', () => {
    expect(transactionEdit('t1', row, { ...row, payeeName: 'Baker & Sons' })).toEqual({
      id: 't1',
      payeeName: 'Baker & Sons',
    })
    expect(transactionEdit('t1', row, { ...row, payeeName: '' })).toEqual({ id: 't1', payeeId: null })
  })

  it('sends changed tags, memo, status and date as they are now', () => {
    expect(
      transactionEdit('t1', row, {
        ...row,
        date: '2026-11-04',
        memo: null,
        status: 'pending',
        tagIds: ['tag-a'],
      }),
    ).toEqual({ id: 't1', date: '2026-11-04', memo: null, status: 'pending', tagIds: ['tag-a'] })
  })

  it('sends the splits whole when a part changed, with the category the split clears', () => {
    const split = {
      ...row,
      categoryId: null,
      splits: [
        { amountCents: '-3000', categoryId: 'cat-groceries', memo: null },
        { amountCents: '-1500', categoryId: 'cat-home', memo: 'soap' },
      ],
    }
    expect(transactionEdit('t1', row, split)).toEqual({
      id: 't1',
      categoryId: null,
      splits: split.splits,
    })
    const moved = {
      ...split,
      splits: [split.splits[0]!, { ...split.splits[1]!, categoryId: 'cat-gifts' }],
    }
    expect(transactionEdit('t1', split, moved)).toEqual({ id: 't1', splits: moved.splits })
    expect(transactionEdit('t1', split, { ...split })).toBeNull()
  })

  it('leaves a reconciled row’s status out, and sends every field when the row as opened could not be read', () => {
    const reconciled = { ...row, status: 'reconciled' as const }
    const { status: _, ...edited } = reconciled
    expect(transactionEdit('t1', reconciled, { ...edited, memo: 'rye' })).toEqual({ id: 't1', memo: 'rye' })
    expect(transactionEdit('t1', null, row)).toEqual({
      id: 't1',
      date: row.date,
      amountCents: row.amountCents,
      payeeName: 'Bakery',
      categoryId: row.categoryId,
      memo: row.memo,
      status: 'cleared',
      tagIds: row.tagIds,
      splits: [],
    })
  })
})
