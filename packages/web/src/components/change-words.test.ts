import { describe, expect, it } from 'vitest'
import { changeWords } from './change-words.ts'

describe('a change in words', () => {
  it('reads plain creates, updates and deletes from the name, with the right article', () => {
    expect(changeWords('transactions.create')).toBe('new transaction')
    expect(changeWords('transactions.update')).toBe('change to a transaction')
    expect(changeWords('accounts.update')).toBe('change to an account')
    expect(changeWords('categoryGroups.delete')).toBe('deletion of a category group')
    expect(changeWords('categories.update')).toBe('change to a category')
  })

  it('says other operations in words of their own, and any unknown one from its name', () => {
    expect(changeWords('catalog.seedStarterPack')).toBe('starter categories')
    expect(changeWords('budgets.assign')).toBe('budget assignment')
    expect(changeWords('tags.renameAll')).toBe('tag rename all')
    expect(changeWords('change')).toBe('a change')
  })
})
