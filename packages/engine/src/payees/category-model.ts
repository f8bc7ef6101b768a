import { normalizePayeeName } from '../catalog/model.ts'

/**
 * A per-household naive Bayes category model, in exact integer arithmetic so that every
 * replica, on any JavaScript engine, picks the same category with the same confidence.
 */

/** What the model sees of a row. */
export interface CategorySubject {
  payeeId: string | null
  /** The payee's normalized name, when the row has a payee. */
  payeeName: string | null
  memo: string | null
  amountCents: number
  accountId: string
}

/** A categorized row the model learns from. */
export interface LabelledSubject extends CategorySubject {
  categoryId: string
}

/** The model's answer for one row. */
export interface CategoryGuess {
  categoryId: string
  /** The guess's posterior share, from 0 to 1, rounded down to 4 places. */
  confidence: number
}

/** At most this many words of a memo count, so a pasted essay cannot drown the payee. */
const MAX_MEMO_WORDS = 8

/** Words of a text as the model counts them: folded like payee names, two characters or more. */
export function words(text: string | null, max = Number.POSITIVE_INFINITY): string[] {
  if (!text) return []
  const out: string[] = []
  for (const w of normalizePayeeName(text).split(' ')) {
    if (w.length >= 2 && !/^\d+$/.test(w) && !out.includes(w)) out.push(w)
    if (out.length >= max) break
  }
  return out
}

/**
 * The amount bucket: its sign and its order of magnitude in whole currency units, read from
 * the digits (`-4599` → `out:2`, 45.99 has two digits before the point; `120000` → `in:4`).
 */
export function amountBucket(cents: number): string {
  const sign = cents < 0 ? 'out' : 'in'
  const units = Math.trunc(Math.abs(cents) / 100)
  return `${sign}:${units === 0 ? 0 : String(units).length}`
}

/**
 * The features of a row: the payee (strongest, so counted twice), the words of its name, the
 * words of its memo, the amount bucket and the account.
 */
export function featuresOf(s: CategorySubject): string[] {
  const out: string[] = []
  if (s.payeeId) out.push(`payee:${s.payeeId}`, `payee:${s.payeeId}`)
  for (const w of words(s.payeeName)) out.push(`name:${w}`)
  for (const w of words(s.memo, MAX_MEMO_WORDS)) out.push(`memo:${w}`)
  out.push(`amount:${amountBucket(s.amountCents)}`, `account:${s.accountId}`)
  return out
}

interface ClassCounts {
  rows: number
  features: number
  byFeature: Map<string, number>
  /** rows × (features + vocabulary)^n by feature count n, as `guess` needs them. */
  denominators?: Map<number, bigint>
}

/** Scores are compared as integers scaled by 10^60: far finer than any confidence we show. */
const SCALE = 10n ** 60n

/** A trained model: counts per category and feature. */
export class CategoryModel {
  private readonly classes = new Map<string, ClassCounts>()
  private readonly vocabulary = new Set<string>()
  private rows = 0
  /** The classes in category id order, as `guess` scores them (ties go to the smaller id). */
  private readonly ordered: [string, ClassCounts][]

  /** Learns from categorized rows; the order of `rows` does not change the model. */
  constructor(rows: readonly LabelledSubject[]) {
    for (const row of rows) {
      let c = this.classes.get(row.categoryId)
      if (!c) {
        c = { rows: 0, features: 0, byFeature: new Map() }
        this.classes.set(row.categoryId, c)
      }
      c.rows++
      this.rows++
      for (const f of featuresOf(row)) {
        c.features++
        c.byFeature.set(f, (c.byFeature.get(f) ?? 0) + 1)
        this.vocabulary.add(f)
      }
    }
    this.ordered = [...this.classes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  }

  /** How many rows it learned from. */
  get size(): number {
    return this.rows
  }

  /**
   * The most likely category of a row among `allowed` (default: every one it knows), with its
   * share of the posterior; ties go to the smaller category id. Multinomial naive Bayes with
   * add-one smoothing: score(c) = rows(c) / rows × Π over features f of
   * (count(f, c) + 1) / (features(c) + |vocabulary|). Undefined when no category is allowed.
   */
  guess(subject: CategorySubject, allowed?: (categoryId: string) => boolean): CategoryGuess | undefined {
    const features = featuresOf(subject)
    const v = BigInt(this.vocabulary.size)
    const scores: { categoryId: string; score: bigint }[] = []
    const n = features.length
    for (const [categoryId, c] of this.ordered) {
      if (allowed && !allowed(categoryId)) continue
      // The same products as multiplying every factor in: a feature the class never saw adds a
      // factor of 1, and the denominator depends only on the class and the number of features.
      let num = BigInt(c.rows)
      for (const f of features) {
        const count = c.byFeature.get(f)
        if (count !== undefined) num *= BigInt(count + 1)
      }
      let den = c.denominators?.get(n)
      if (den === undefined) {
        den = BigInt(this.rows) * (BigInt(c.features) + v) ** BigInt(n)
        c.denominators ??= new Map()
        c.denominators.set(n, den)
      }
      scores.push({ categoryId, score: (num * SCALE) / den })
    }
    if (scores.length === 0) return undefined
    let best = scores[0]!
    let total = 0n
    for (const s of scores) {
      total += s.score
      if (s.score > best.score) best = s
    }
    if (total === 0n) return { categoryId: best.categoryId, confidence: 0 }
    return { categoryId: best.categoryId, confidence: Number((best.score * 10_000n) / total) / 10_000 }
  }
}
