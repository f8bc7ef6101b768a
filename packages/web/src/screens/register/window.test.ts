import { describe, expect, it } from 'vitest'
import { rowHeights, rowOffsets, rowsCovering, stillCovers, windowParts } from './window.ts'

// 1,000 rows of 40 px: the list is 40,000 px tall.
const even = rowOffsets(new Array(1_000).fill(40))

describe('rowOffsets', () => {
  it('gives each row its top and the list its height', () => {
    expect(rowOffsets([10, 30, 5])).toEqual([0, 10, 40, 45])
    expect(rowOffsets([])).toEqual([0])
  })
})

describe('rowsCovering', () => {
  it('takes the rows in the viewport and the overscan either side', () => {
    // Viewport 4,000–4,800 px: rows 100–119; 200 px of overscan adds 5 rows each side.
    expect(rowsCovering(even, 4_000, 800, 200)).toEqual({ first: 95, end: 125 })
  })

  it('starts at the first row while the list is below the viewport top', () => {
    expect(rowsCovering(even, -300, 800, 200)).toEqual({ first: 0, end: 18 })
  })

  it('ends at the last row when scrolled past the end', () => {
    expect(rowsCovering(even, 39_900, 800, 200)).toEqual({ first: 992, end: 1_000 })
    expect(rowsCovering(even, 90_000, 800, 200)).toEqual({ first: 999, end: 1_000 })
  })

  it('follows rows of different heights', () => {
    // A 600 px editor at row 2 pushes row 3 to 680 px.
    const offsets = rowOffsets([40, 40, 600, 40, 40, 40, 40])
    expect(rowsCovering(offsets, 700, 50, 0)).toEqual({ first: 3, end: 5 })
    expect(rowsCovering(offsets, 100, 50, 0)).toEqual({ first: 2, end: 3 })
  })

  it('has nothing to cover in an empty list', () => {
    expect(rowsCovering([0], 0, 800, 200)).toEqual({ first: 0, end: 0 })
  })
})

describe('stillCovers', () => {
  const rendered = { first: 95, end: 125 }
  it('holds while the rows rendered reach past the viewport by the margin', () => {
    expect(stillCovers(even, rendered, 4_000, 800, 100)).toBe(true)
    expect(stillCovers(even, rendered, 4_150, 800, 100)).toBe(false)
    expect(stillCovers(even, rendered, 3_850, 800, 100)).toBe(false)
  })

  it('needs no margin at the ends of the list', () => {
    expect(stillCovers(even, { first: 0, end: 30 }, 0, 800, 300)).toBe(true)
    expect(stillCovers(even, { first: 970, end: 1_000 }, 39_200, 800, 300)).toBe(true)
  })

  it('does not hold once the list has fewer rows than rendered', () => {
    expect(stillCovers(rowOffsets([40, 40]), { first: 0, end: 3 }, 0, 800, 0)).toBe(false)
  })
})

describe('windowParts', () => {
  it('puts a spacer for the rows above and below the window', () => {
    expect(windowParts(even, { first: 95, end: 98 }, [])).toEqual([
      { from: 0, to: 95, height: 3_800 },
      { row: 95 },
      { row: 96 },
      { row: 97 },
      { from: 98, to: 1_000, height: 36_080 },
    ])
  })

  it('keeps a pinned row outside the window, between spacers of its own', () => {
    expect(windowParts(even, { first: 95, end: 97 }, [10, 96, 500])).toEqual([
      { from: 0, to: 10, height: 400 },
      { row: 10 },
      { from: 11, to: 95, height: 3_360 },
      { row: 95 },
      { row: 96 },
      { from: 97, to: 500, height: 16_120 },
      { row: 500 },
      { from: 501, to: 1_000, height: 19_960 },
    ])
  })

  it('needs no spacer when the window reaches both ends', () => {
    expect(windowParts(rowOffsets([40, 40]), { first: 0, end: 2 }, [])).toEqual([{ row: 0 }, { row: 1 }])
  })

  it('ignores a pinned row no longer in the list', () => {
    expect(windowParts(rowOffsets([40, 40]), { first: 0, end: 1 }, [-1, 7])).toEqual([
      { row: 0 },
      { from: 1, to: 2, height: 40 },
    ])
  })

  it('keeps the list its height, whatever is rendered', () => {
    const offsets = rowOffsets([40, 90, 40, 600, 40, 70, 40])
    for (const [first, end, pinned] of [
      [0, 2, []],
      [3, 5, [0]],
      [5, 7, [1, 3]],
    ] as const) {
      const parts = windowParts(offsets, { first, end }, pinned)
      const height = parts.reduce(
        (sum, p) => sum + ('row' in p ? offsets[p.row + 1]! - offsets[p.row]! : p.height),
        0,
      )
      expect(height).toBe(offsets.at(-1))
    }
  })
})

describe('rowHeights', () => {
  it('takes the measured height where there is one and the median of them elsewhere', () => {
    const measured = new Map([
      ['a', 40],
      ['b', 44],
      ['c', 600],
    ])
    expect(rowHeights(['a', 'x', 'b', 'c', 'y'], measured, 41)).toEqual([40, 44, 44, 600, 44])
  })

  it('falls back to the default before any row is measured', () => {
    expect(rowHeights(['x', 'y'], new Map(), 41)).toEqual([41, 41])
  })
})
