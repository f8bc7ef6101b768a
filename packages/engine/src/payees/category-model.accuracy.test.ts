import { describe, expect, it } from 'vitest'
import { CategoryModel } from './category-model.ts'
import { sampleHousehold } from './sample-household.ts'
import { MIN_CONFIDENCE } from './suggestion-step.ts'

/** Trains on the older 80% of a generated household and scores the newer 20%. */
export function measureAccuracy(count = 3000, seed = 12) {
  const rows = sampleHousehold(count, seed)
  const cut = Math.floor(rows.length * 0.8)
  const model = new CategoryModel(rows.slice(0, cut))
  let correct = 0
  let offered = 0
  let offeredCorrect = 0
  const test = rows.slice(cut)
  for (const row of test) {
    const guess = model.guess(row)!
    if (guess.categoryId === row.categoryId) correct++
    if (guess.confidence >= MIN_CONFIDENCE) {
      offered++
      if (guess.categoryId === row.categoryId) offeredCorrect++
    }
  }
  return {
    trained: cut,
    tested: test.length,
    top1: correct / test.length,
    offered: offered / test.length,
    precisionWhenOffered: offeredCorrect / offered,
  }
}

describe('the category model on a generated household', () => {
  it('guesses most categories right, and is right more often still when it offers a suggestion', () => {
    const result = measureAccuracy()
    console.log('category suggestions on a generated household:', JSON.stringify(result))
    expect(result.top1).toBeGreaterThan(0.8)
    expect(result.precisionWhenOffered).toBeGreaterThan(result.top1)
  })
})
