import { describe, expect, it } from 'vitest'
import { DEFAULT_FLAGS, deriveUlid, normalizePayeeName } from './model.ts'

describe('normalizePayeeName', () => {
  it.each([
    ['Whole Foods', 'whole foods'],
    ['  WHOLE   FOODS  ', 'whole foods'],
    ['Café Crème', 'cafe creme'],
    ['Ŝtraße Ørsted', 'strasse orsted'],
    ["McDonald's", 'mcdonalds'],
    ['McDonald’s #1234', 'mcdonalds 1234'],
    ['AMAZON.COM*MK1AB2', 'amazon com mk1ab2'],
    ['Wal-Mart  Supercenter', 'wal mart supercenter'],
    ['H&M', 'h m'],
    ['Ｓｔａｒｂｕｃｋｓ', 'starbucks'],
    ['Tab\tand\nnewline', 'tab and newline'],
    ['İstanbul Kebap', 'istanbul kebap'],
    ['東京 ラーメン', '東京 ラーメン'],
  ])('folds %j to %j', (name, expected) => {
    expect(normalizePayeeName(name)).toBe(expected)
  })

  it('gives names that differ only in case, accents or punctuation the same form', () => {
    expect(normalizePayeeName('Café-Bar')).toBe(normalizePayeeName('cafe bar'))
  })

  it('keeps a punctuation-only name as itself rather than folding it to nothing', () => {
    expect(normalizePayeeName('  ?!  ')).toBe('?!')
    expect(normalizePayeeName('--')).not.toBe(normalizePayeeName('??'))
  })
})

describe('deriveUlid', () => {
  const seed = '01JD5Z9Y6XQ3M4N5P6R7S8T9VW'

  it('keeps the seed time part and yields a valid ULID', () => {
    const id = deriveUlid(seed, 'flag:red')
    expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/)
    expect(id.slice(0, 10)).toBe(seed.slice(0, 10))
  })

  it('is the same for the same inputs and differs across salts and seeds', () => {
    expect(deriveUlid(seed, 'flag:red')).toBe(deriveUlid(seed, 'flag:red'))
    const ids = new Set(DEFAULT_FLAGS.map((f) => deriveUlid(seed, `flag:${f.key}`)))
    expect(ids.size).toBe(DEFAULT_FLAGS.length)
    expect(deriveUlid('01JD5Z9Y6XQ3M4N5P6R7S8T9VX', 'flag:red')).not.toBe(deriveUlid(seed, 'flag:red'))
  })
})
