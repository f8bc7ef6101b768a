import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { applyLocalEdit, mapThroughDelta } from './text-binding.ts'

function textOf(value: string): Y.Text {
  const doc = new Y.Doc()
  const text = doc.getText('text')
  text.insert(0, value)
  return text
}

describe('the note editor’s textarea binding', () => {
  it('turns an input into the edit at the caret', () => {
    const text = textOf('aa')
    const ops: unknown[] = []
    text.observe((e) => ops.push(...e.delta))
    applyLocalEdit(text, 'aaa', 2)
    expect(text.toString()).toBe('aaa')
    expect(ops).toEqual([{ retain: 1 }, { insert: 'a' }])
    applyLocalEdit(text, 'abXa', 3)
    expect(text.toString()).toBe('abXa')
    applyLocalEdit(text, 'a😀a', 2)
    expect(text.toString()).toBe('a😀a')
    applyLocalEdit(text, 'a😁a', 3)
    expect(text.toString()).toBe('a😁a')
    applyLocalEdit(text, '', 0)
    expect(text.toString()).toBe('')
  })

  it('keeps the caret on its text through remote inserts and deletes', () => {
    const text = textOf('hello world')
    let delta: Y.YTextEvent['delta'] = []
    text.observe((e) => {
      delta = e.delta
    })
    text.insert(0, '>> ')
    expect(mapThroughDelta(5, delta)).toBe(8)
    text.insert(text.length, '!')
    expect(mapThroughDelta(8, delta)).toBe(8)
    text.delete(0, 3)
    expect(mapThroughDelta(8, delta)).toBe(5)
    text.delete(3, 4) // "hel|lo w|orld": a caret inside the deleted span lands at its start
    expect(mapThroughDelta(5, delta)).toBe(3)
    expect(mapThroughDelta(9, delta)).toBe(5)
  })
})
