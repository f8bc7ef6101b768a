import { describe, expect, it } from 'vitest'
import { incomeFirst, offeredCategory } from './offered-category.ts'

const groups = [
  { group: { name: 'Bills', isIncome: false }, categories: [{ id: 'rent' }] },
  { group: { name: 'Income', isIncome: true }, categories: [{ id: 'salary' }, { id: 'other-income' }] },
]

describe('offeredCategory', () => {
  it('offers the first income category for a salary typed as an inflow', () => {
    const draft = { inflow: '5500', outflow: '', categoryId: '' }
    expect(offeredCategory(draft, false, groups)).toBe('salary')
  })

  it('offers nothing for money out', () => {
    expect(offeredCategory({ inflow: '', outflow: '12.50', categoryId: '' }, false, groups)).toBe('')
  })

  it('keeps what the person chose, even Uncategorized', () => {
    expect(offeredCategory({ inflow: '20', outflow: '', categoryId: 'rent' }, true, groups)).toBe('rent')
    expect(offeredCategory({ inflow: '20', outflow: '', categoryId: '' }, true, groups)).toBe('')
  })

  it('offers nothing when the household has no income category', () => {
    expect(offeredCategory({ inflow: '20', outflow: '', categoryId: '' }, false, groups.slice(0, 1))).toBe('')
  })
})

describe('incomeFirst', () => {
  it('lists income groups before the others, each side in its order', () => {
    expect(incomeFirst(groups).map((g) => g.group.name)).toEqual(['Income', 'Bills'])
  })
})
