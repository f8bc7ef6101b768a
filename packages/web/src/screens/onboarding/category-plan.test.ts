import { describe, expect, it } from 'vitest'
import { type DraftGroup, draftOf, packOf } from './category-plan.ts'

const draft: DraftGroup[] = [
  {
    name: ' Bills ',
    isIncome: false,
    included: true,
    categories: [
      { name: 'Rent', included: true },
      { name: 'Phone', included: false },
      { name: '  ', included: true },
    ],
  },
  { name: 'Fun', isIncome: false, included: false, categories: [{ name: 'Games', included: true }] },
  { name: 'Empty', isIncome: false, included: true, categories: [{ name: 'Gym', included: false }] },
  { name: 'Income', isIncome: true, included: true, categories: [{ name: 'Salary', included: true }] },
]

describe('packOf', () => {
  it('sends the ticked groups and categories, trimmed, and drops blank names and empty groups', () => {
    expect(packOf(draft)).toEqual([
      { name: 'Bills', isIncome: false, categories: ['Rent'] },
      { name: 'Income', isIncome: true, categories: ['Salary'] },
    ])
  })

  it('sends nothing for a household that starts empty', () => {
    expect(packOf(draft.map((g) => ({ ...g, included: false })))).toEqual([])
  })
})

describe('draftOf', () => {
  it('makes the pack a draft in the household’s language, everything ticked', () => {
    const pack = [
      {
        isIncome: true,
        names: { en: 'Income', de: 'Einnahmen' },
        categories: [{ names: { en: 'Salary', de: 'Gehalt' } }],
      },
    ]
    expect(draftOf(pack, 'de')).toEqual([
      { name: 'Einnahmen', isIncome: true, included: true, categories: [{ name: 'Gehalt', included: true }] },
    ])
  })
})
