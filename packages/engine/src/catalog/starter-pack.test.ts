import { describe, expect, it } from 'vitest'
import { STARTER_PACK, STARTER_PACK_LANGUAGES, starterPackLanguage } from './starter-pack.ts'

describe('starterPackLanguage', () => {
  it.each([
    ['en', 'en'],
    ['de', 'de'],
    ['de-CH', 'de'],
    ['FR-ca', 'fr'],
    ['es-419', 'es'],
    ['it', 'en'],
    ['ja-JP', 'en'],
  ])('uses %j names for data language %j', (dataLanguage, expected) => {
    expect(starterPackLanguage(dataLanguage)).toBe(expected)
  })
})

describe('STARTER_PACK', () => {
  it.each(STARTER_PACK_LANGUAGES)('has distinct group and category names in %s, ignoring case', (lang) => {
    const groups = STARTER_PACK.map((g) => g.names[lang].toLowerCase())
    const categories = STARTER_PACK.flatMap((g) => g.categories.map((c) => c.names[lang].toLowerCase()))
    expect(new Set(groups).size).toBe(groups.length)
    expect(new Set(categories).size).toBe(categories.length)
    for (const name of [...groups, ...categories]) expect(name.trim()).toBe(name)
  })

  it('has unique keys, so derived ids never collide', () => {
    const keys = STARTER_PACK.flatMap((g) => [
      `group:${g.key}`,
      ...g.categories.map((c) => `category:${c.key}`),
    ])
    expect(new Set(keys).size).toBe(keys.length)
  })

  it('has exactly one income group, listed last', () => {
    expect(STARTER_PACK.filter((g) => g.isIncome).map((g) => g.key)).toEqual(['income'])
    expect(STARTER_PACK.at(-1)?.isIncome).toBe(true)
  })
})
