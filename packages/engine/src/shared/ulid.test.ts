import { decodeTime, isValid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { monotonicUlids, newUlid } from './ulid.ts'

describe('newUlid', () => {
  it('makes valid, distinct ULIDs stamped with the time, across refills of its pool', () => {
    const before = Date.now()
    const ids = Array.from({ length: 5000 }, () => newUlid())
    expect(ids.every(isValid)).toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
    expect(decodeTime(ids[0]!)).toBeGreaterThanOrEqual(before)
    expect(decodeTime(newUlid(1_700_000_000_000))).toBe(1_700_000_000_000)
    // Each of the 16 random characters takes every one of the 32 symbols.
    for (let i = 10; i < 26; i++) expect(new Set(ids.map((id) => id[i])).size).toBe(32)
  })
})

describe('monotonicUlids', () => {
  it('makes valid ULIDs that strictly increase, within one millisecond too', () => {
    const next = monotonicUlids()
    const ids = Array.from({ length: 5000 }, () => next(1_700_000_000_000))
    expect(ids.every(isValid)).toBe(true)
    expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true)
    expect(decodeTime(ids.at(-1)!)).toBe(1_700_000_000_000)
    const later = next()
    expect(later > ids.at(-1)!).toBe(true)
  })
})
