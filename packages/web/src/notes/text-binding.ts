import type * as Y from 'yjs'

/**
 * Turns the textarea's new value into one edit of `text`: the span between the common start and
 * the common end, with the common start kept at or before the caret (so typing "a" after "a"
 * inserts where the caret is, not at the first "a").
 */
export function applyLocalEdit(text: Y.Text, next: string, caret: number): void {
  const prev = text.toString()
  if (prev === next) return
  const grown = Math.max(0, next.length - prev.length)
  let start = 0
  const maxStart = Math.min(prev.length, next.length, Math.max(0, caret - grown))
  while (start < maxStart && prev.charCodeAt(start) === next.charCodeAt(start)) start++
  let end = 0
  const maxEnd = Math.min(prev.length - start, next.length - start)
  while (end < maxEnd && prev.charCodeAt(prev.length - 1 - end) === next.charCodeAt(next.length - 1 - end))
    end++
  // Never cut a surrogate pair in two.
  if (start > 0 && isHigh(prev.charCodeAt(start - 1))) start--
  if (end > 0 && isLow(prev.charCodeAt(prev.length - end))) end--
  const removed = prev.length - start - end
  const inserted = next.slice(start, next.length - end)
  if (removed > 0) text.delete(start, removed)
  if (inserted) text.insert(start, inserted)
}

/** Where a caret at `position` is after a remote change (`event.delta`); text inserted at the caret goes after it. */
export function mapThroughDelta(position: number, delta: Y.YTextEvent['delta']): number {
  // `old` walks the text as it was: retains and deletes consume it, inserts add to the new one.
  let old = 0
  let mapped = position
  for (const op of delta) {
    if (op.retain !== undefined) old += op.retain
    else if (op.insert !== undefined) {
      if (old < position) mapped += typeof op.insert === 'string' ? op.insert.length : 1
    } else if (op.delete !== undefined) {
      if (old < position) mapped -= Math.min(op.delete, position - old)
      old += op.delete
    }
  }
  return Math.max(0, mapped)
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff
