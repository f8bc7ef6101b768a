import { describe, expect, it } from 'vitest'
import {
  cosineSimilarity,
  DUPLICATE_THRESHOLD,
  duplicateGroups,
  nameVector,
  similarPairs,
  skeleton,
} from './name-vector.ts'

const sim = (a: string, b: string) => cosineSimilarity(nameVector(a), nameVector(b))

describe('payee name vectors', () => {
  it('builds a word from its consonant skeleton bigrams, first word counted twice', () => {
    expect(skeleton('amazon')).toBe('amzn')
    expect(skeleton('mktplace')).toBe('mktplc')
    // One word: 5 distinct bigrams, each 2 / sqrt(5).
    const v = nameVector('Amazon')
    expect([...v.keys()]).toEqual(['^a', 'am', 'mz', 'zn', 'n$'])
    for (const w of v.values()) expect(w).toBeCloseTo(2 / Math.sqrt(5), 12)
  })

  it('clusters a bank abbreviation with the full name', () => {
    // amazon is shared (weight 2); mktplc and mrktplc share 6 of their 7 and 8 bigrams:
    // (4 + 6 / sqrt(56)) / 5 = 0.960357.
    expect(sim('AMAZON MKTPLACE', 'Amazon Marketplace')).toBe(0.960357)
    expect(sim('AMAZON MKTPLACE', 'Amazon Marketplace')).toBeGreaterThanOrEqual(DUPLICATE_THRESHOLD)
  })

  it('keeps Amazon apart from Amazing Pizza', () => {
    // amzn and amzng share 4 bigrams: 2 * 2 * 4 / sqrt(30) / (2 * sqrt(5)) = 0.653197.
    expect(sim('Amazon', 'Amazing Pizza')).toBe(0.653197)
  })

  it('puts a one-word name and the same word plus another just below the line', () => {
    // 2 / sqrt(5): "Uber" and "Uber Eats" are different merchants often enough.
    expect(sim('Uber', 'Uber Eats')).toBe(0.894427)
    expect(sim('Amazon', 'Amazon Marketplace')).toBe(0.894427)
  })

  it('answers 1 for names that fold to the same form, and 0 for nothing shared', () => {
    expect(sim("McDonald's", 'MCDONALDS')).toBe(1)
    expect(sim('Lidl', 'Aldi')).toBeLessThan(0.5)
    expect(sim('', 'x')).toBe(0)
  })

  it('groups connected near-duplicates, each group in input order, singletons left out', () => {
    const items = [
      { id: 'a', name: 'Amazon Marketplace' },
      { id: 'b', name: 'Amazing Pizza' },
      { id: 'c', name: 'AMAZON MKTPLACE' },
      { id: 'd', name: 'Amazon' },
      { id: 'e', name: 'Netflix' },
      { id: 'f', name: 'NETFLIX' },
    ]
    expect(duplicateGroups(items)).toEqual([
      ['a', 'c'],
      ['e', 'f'],
    ])
  })

  it('gives the same similarity in a group scan (packed vectors) as one comparison does', () => {
    const names = [
      'Amazon Marketplace',
      'AMAZON MKTPLACE',
      'Amazon',
      'AMZN',
      'Amazing Pizza',
      'Uber',
      'Uber Eats',
    ]
    const items = names.map((name) => ({ id: name, name }))
    const pairs = similarPairs(items, 0)
    expect(pairs).toHaveLength((names.length * (names.length - 1)) / 2)
    for (const p of pairs) expect(p.similarity).toBe(sim(p.a, p.b))
  })
})
