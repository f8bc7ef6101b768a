import NaiveBayes from 'wink-naive-bayes-text-classifier'
import nlp from 'wink-nlp-utils'
import type { Intent } from './corpus.ts'
import { expandCorpus } from './corpus-expand.ts'

/** An intent and how sure the classifier is of it, 0 to 1. */
export interface Guess {
  intent: Intent
  confidence: number
}

/** The trained classifier, and every stem it has seen (a word outside it is news to it). */
export interface IntentClassifier {
  rank(masked: string): Guess[]
  knows(word: string): boolean
  /** Whether a word is the corpus's own or one typo away from one of its words. */
  near(word: string): boolean
}

/** Whether two words are at most `max` edits apart (insert, delete, substitute). */
export function within(a: string, b: string, max: number): boolean {
  if (Math.abs(a.length - b.length) > max) return false
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    let best = i
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
      best = Math.min(best, row[j]!)
    }
    if (best > max) return false
    prev = row
  }
  return prev[b.length]! <= max
}

const stemOf = new Map<string, string>()

/** The stems of a text, as the classifier reads it (each word stemmed once per process). */
export function stems(text: string): string[] {
  return nlp.string.tokenize0(nlp.string.lowerCase(text)).map((word) => {
    let stem = stemOf.get(word)
    if (stem === undefined) {
      stem = nlp.tokens.stem([word])[0] ?? word
      stemOf.set(word, stem)
    }
    return stem
  })
}

/** The classifier's features of a text: its stems and each pair of neighbouring stems. */
export function features(text: string): string[] {
  const words = stems(text)
  return [...words, ...words.slice(1).map((w, i) => `${words[i]}_${w}`)]
}

/** Trains a naive Bayes classifier (wink) on the expanded corpus: about half a second, once. */
export function trainClassifier(): IntentClassifier {
  const model = NaiveBayes()
  // Stems and the pairs of stems beside each other: "been paid" is income where "have paid" is not.
  model.definePrepTasks([features])
  model.defineConfig({ considerOnlyPresence: true, smoothingFactor: 0.3 })
  const vocabulary = new Set<string>()
  // A question the corpus holds word for word is that example's intent (when only one has it).
  const exact = new Map<string, Intent | null>()
  for (const { text, intent } of expandCorpus()) {
    const words = stems(text)
    const key = words.join(' ')
    exact.set(key, exact.has(key) && exact.get(key) !== intent ? null : intent)
    model.learn(text, intent)
    for (const w of words) vocabulary.add(w)
  }
  model.consolidate()
  return {
    rank(masked) {
      const known = exact.get(stems(masked).join(' '))
      const odds = model.computeOdds(masked) as [string, number][]
      if (odds.length === 0 || odds[0]![0] === 'unknown') return []
      // Odds are log odds against the rest; as probabilities they need not sum to one.
      const ranked = odds.map(([intent, o]) => ({
        intent: intent as Intent,
        confidence: 1 / (1 + Math.exp(-o)),
      }))
      if (!known) return ranked
      return [{ intent: known, confidence: 1 }, ...ranked.filter((g) => g.intent !== known)]
    },
    knows: (word) => stems(word).every((s) => vocabulary.has(s)),
    near: (word) => {
      const max = word.length >= 7 ? 2 : word.length >= 4 ? 1 : 0
      return stems(word).every(
        (s) => vocabulary.has(s) || (max > 0 && [...vocabulary].some((v) => within(s, v, max))),
      )
    },
  }
}

let trained: IntentClassifier | null = null

/** The process's classifier, trained at its first use (the corpus never changes while it runs). */
export function intentClassifier(): IntentClassifier {
  trained ??= trainClassifier()
  return trained
}
