import { describe, expect, it } from 'vitest'
import { reorderedPositions } from './reorder.ts'

describe('reorderedPositions', () => {
  it('moves a category up one place: the whole group renumbered', () => {
    expect(reorderedPositions(['rent', 'power', 'phone'], 2, 1)).toEqual([
      { id: 'rent', position: 0 },
      { id: 'phone', position: 1 },
      { id: 'power', position: 2 },
    ])
  })

  it('drags the first to the end', () => {
    expect(reorderedPositions(['a', 'b', 'c'], 0, 2).map((i) => i.id)).toEqual(['b', 'c', 'a'])
  })

  it('sends nothing for a move that goes nowhere or off the list', () => {
    expect(reorderedPositions(['a', 'b'], 1, 1)).toEqual([])
    expect(reorderedPositions(['a', 'b'], 0, -1)).toEqual([])
    expect(reorderedPositions(['a', 'b'], 1, 2)).toEqual([])
  })
})
