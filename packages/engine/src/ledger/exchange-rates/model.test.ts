import { describe, expect, it } from 'vitest'
import { convertCents, convertCentsExact, normalizeRate } from './model.ts'

describe('normalizeRate', () => {
  it('drops leading and trailing zeros but keeps a whole zero', () => {
    expect(normalizeRate('001.2500')).toBe('1.25')
    expect(normalizeRate('0.0800')).toBe('0.08')
    expect(normalizeRate('2.000')).toBe('2')
    expect(normalizeRate('0')).toBe('0')
  })
})

describe('convertCents', () => {
  it('multiplies exactly and rounds half away from zero', () => {
    expect(convertCents(10000, '1.0825')).toBe(10825)
    // 1234 * 0.5 = 617 exactly; 1235 * 0.5 = 617.5 -> 618; -1235 * 0.5 -> -618.
    expect(convertCents(1234, '0.5')).toBe(617)
    expect(convertCents(1235, '0.5')).toBe(618)
    expect(convertCents(-1235, '0.5')).toBe(-618)
    // 0.1 + 0.2 trouble never arises: 3 * 0.1 is 0.3 cents -> 0.
    expect(convertCents(3, '0.1')).toBe(0)
    expect(convertCents(5, '0.1')).toBe(1)
    expect(convertCents(-4, '0.1')).toBe(0)
  })

  it('stays exact for large amounts and long rates', () => {
    expect(convertCents(123_456_789_012, '0.000000000001')).toBe(0)
    expect(convertCents(900_000_000_000_000, '1.000000000001')).toBe(900_000_000_000_900)
    expect(() => convertCents(9_000_000_000_000_000, '999999999999')).toThrow(RangeError)
  })
})

describe('convertCentsExact', () => {
  it('converts past 2^53 without losing a cent, rounding as convertCents does', () => {
    expect(convertCentsExact(9_000_000_000_000_000n, '999999999999')).toBe(
      8_999_999_999_991_000_000_000_000_000n,
    )
    expect(convertCentsExact(-1235n, '0.5')).toBe(-618n)
    expect(convertCentsExact(1235n, '0.5')).toBe(618n)
  })
})
