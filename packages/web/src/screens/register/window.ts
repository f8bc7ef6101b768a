/**
 * The register's window: which of its rows are in the page. Only the rows near the viewport are
 * rendered, with a spacer row above and below as tall as the rows left out, so the page scrolls as
 * far as it would with every row there. Rows differ in height (a card on a phone, an open editor,
 * tags that wrap), so each row's height is the one measured when it was last rendered, or the
 * median of those measured for a row never rendered yet (`rowHeights`).
 */

/** Each row's top, from the list's top, and at `[heights.length]` the whole list's height. */
export function rowOffsets(heights: readonly number[]): number[] {
  const offsets = new Array<number>(heights.length + 1)
  offsets[0] = 0
  for (let i = 0; i < heights.length; i++) offsets[i + 1] = offsets[i]! + heights[i]!
  return offsets
}

/** The rows `[first, end)` in the page. */
export interface RowRange {
  first: number
  end: number
}

/**
 * The rows that cover from `overscan` px above the viewport to `overscan` px below it. `top` is
 * how far the viewport's top is below the list's top (negative while the list starts lower down).
 */
export function rowsCovering(
  offsets: readonly number[],
  top: number,
  viewport: number,
  overscan: number,
): RowRange {
  const count = offsets.length - 1
  if (count <= 0) return { first: 0, end: 0 }
  const first = rowAt(offsets, top - overscan)
  const end = Math.min(count, firstTopAtOrBelow(offsets, top + viewport + overscan))
  return { first, end: Math.max(end, first + 1) }
}

/**
 * Whether the rows rendered still cover the viewport with `margin` px to spare on each side at
 * both ends of the list that have rows left out; while they do, scrolling renders nothing new.
 */
export function stillCovers(
  offsets: readonly number[],
  range: RowRange,
  top: number,
  viewport: number,
  margin: number,
): boolean {
  const count = offsets.length - 1
  if (range.end > count) return false
  const above = range.first === 0 || offsets[range.first]! <= top - margin
  const below = range.end === count || offsets[range.end]! >= top + viewport + margin
  return above && below
}

/** A row of the list, by index, or a spacer standing for the rows `[from, to)` left out. */
export type WindowPart = { row: number } | { from: number; to: number; height: number }

/**
 * What the table body holds: the rows of `range` and the `pinned` ones wherever they are (an open
 * editor, the row with the keyboard's focus: scrolling must not take them out of the page), in
 * order, with a spacer for each run of rows between them.
 */
export function windowParts(
  offsets: readonly number[],
  range: RowRange,
  pinned: readonly number[],
): WindowPart[] {
  const count = offsets.length - 1
  const shown = new Set<number>()
  for (let i = Math.max(0, range.first); i < Math.min(count, range.end); i++) shown.add(i)
  for (const i of pinned) if (i >= 0 && i < count) shown.add(i)
  const rows = [...shown].sort((a, b) => a - b)
  const parts: WindowPart[] = []
  let next = 0
  for (const row of rows) {
    if (row > next) parts.push({ from: next, to: row, height: offsets[row]! - offsets[next]! })
    parts.push({ row })
    next = row + 1
  }
  if (next < count) parts.push({ from: next, to: count, height: offsets[count]! - offsets[next]! })
  return parts
}

/** The row at `y` px below the list's top (the first row above it, the last below it). */
function rowAt(offsets: readonly number[], y: number): number {
  const count = offsets.length - 1
  let low = 0
  let high = count - 1
  // The last row whose top is at or above y.
  while (low < high) {
    const mid = (low + high + 1) >> 1
    if (offsets[mid]! <= y) low = mid
    else high = mid - 1
  }
  return low
}

/** The first row whose top is at or below `y` (the list's length if none is). */
function firstTopAtOrBelow(offsets: readonly number[], y: number): number {
  let low = 0
  let high = offsets.length - 1
  while (low < high) {
    const mid = (low + high) >> 1
    if (offsets[mid]! >= y) high = mid
    else low = mid + 1
  }
  return low
}

/**
 * Each row's height: as measured where it was, else the median of those measured (an open editor,
 * many times a row's height, does not make every row never seen taller), else `fallback`.
 */
export function rowHeights(
  keys: readonly string[],
  measured: ReadonlyMap<string, number>,
  fallback: number,
): number[] {
  const known = keys.flatMap((key) => measured.get(key) ?? []).sort((a, b) => a - b)
  const estimate = known.length > 0 ? known[known.length >> 1]! : fallback
  return keys.map((key) => measured.get(key) ?? estimate)
}
