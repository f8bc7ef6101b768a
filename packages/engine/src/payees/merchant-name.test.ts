import { describe, expect, it } from 'vitest'
import { merchantWords } from './merchant-name.ts'
import { cosineSimilarity, DUPLICATE_THRESHOLD, duplicateGroups, nameVector } from './name-vector.ts'

const sim = (a: string, b: string) => cosineSimilarity(nameVector(a), nameVector(b))

describe('merchant words of bank text', () => {
  it('drops processor prefixes, store numbers, generic words and a trailing city and state', () => {
    expect(merchantWords('STARBUCKS #1234')).toEqual(['starbucks'])
    expect(merchantWords("Starbuck's Coffee")).toEqual(['starbucks'])
    expect(merchantWords('STARBUCKS STORE 05521 SEATTLE WA')).toEqual(['starbucks'])
    expect(merchantWords('SQ *BLUE BOTTLE COFFEE')).toEqual(['blue', 'bottle'])
    expect(merchantWords('TST* JOES DINER 0042')).toEqual(['joes', 'diner'])
    expect(merchantWords('PAYPAL *EBAY')).toEqual(['ebay'])
    expect(merchantWords('AMZN Mktp US*2K4LM')).toEqual(['amzn', 'mktp'])
    expect(merchantWords('SHELL OIL 57442 SAN FRANCISCO CA')).toEqual(['shell', 'oil'])
    expect(merchantWords('AMAZON.COM')).toEqual(['amazon'])
  })

  it('keeps a name that would lose every word, and a leading number that is the name', () => {
    expect(merchantWords('PayPal')).toEqual(['paypal'])
    expect(merchantWords('7-Eleven #3321')).toEqual(['7', 'eleven'])
    expect(merchantWords('Coffee')).toEqual(['coffee'])
  })
})

describe('near-duplicates on real bank text', () => {
  it('groups Starbucks, STARBUCKS #1234 and Starbuck’s Coffee, and leaves Shell and Amazon alone', () => {
    expect(sim('Starbucks', 'STARBUCKS #1234')).toBe(1)
    expect(sim('Starbucks', "Starbuck's Coffee")).toBe(1)
    expect(sim('Starbucks', 'SQ *STARBUCKS 0042 SEATTLE WA')).toBe(1)
    expect(sim('Shell', 'Amazon')).toBeLessThan(DUPLICATE_THRESHOLD)
    expect(sim('Shell', 'Starbucks')).toBeLessThan(DUPLICATE_THRESHOLD)
    const items = ['Starbucks', 'Shell', 'STARBUCKS #1234', 'Amazon', "Starbuck's Coffee"].map((name, i) => ({
      id: `p${i}`,
      name,
    }))
    expect(duplicateGroups(items)).toEqual([['p0', 'p2', 'p4']])
  })

  it('still keeps Uber apart from Uber Eats and Amazon from Amazing Pizza', () => {
    expect(sim('Uber', 'Uber Eats')).toBe(0.894427)
    expect(sim('Amazon', 'Amazing Pizza')).toBe(0.653197)
  })
})
