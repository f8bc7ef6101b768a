import { merchantWords } from './merchant-name.ts'

/** Names at least this similar are near-duplicates (the contract's threshold). */
export const DUPLICATE_THRESHOLD = 0.9

/** How much more the first word of a name counts than each later word: it is the merchant. */
const FIRST_WORD_WEIGHT = 2

/** A sparse vector: feature to weight, with features in a fixed order. */
export type NameVector = ReadonlyMap<string, number>

/**
 * The consonant skeleton of a word: its first letter, then its other letters without vowels
 * (a, e, i, o, u, y). Bank feeds abbreviate by dropping vowels ("MKTPLACE", "AMZN"), so the
 * skeleton of the short form is close to, or equal to, that of the long one.
 */
export function skeleton(word: string): string {
  return word.slice(0, 1) + word.slice(1).replace(/[aeiouy]/g, '')
}

/**
 * The vector a payee name is compared by. The name is cleaned of bank noise (`merchantWords`:
 * normalized, without processor prefixes, store numbers, generic words, city and state); each word becomes the bigrams of its skeleton with `^` and `$` marking its
 * ends (`amazon` → `amzn` → `^a am mz zn n$`), scaled to length 1, and the first word counts
 * twice. The words are summed into one sparse vector keyed by the bigram itself (an exact
 * "hash", so no two bigrams collide). Pure: the same name gives the same vector everywhere.
 */
export function nameVector(name: string): NameVector {
  const out = new Map<string, number>()
  const words = merchantWords(name)
  words.forEach((word, index) => {
    const padded = `^${skeleton(word)}$`
    const counts = new Map<string, number>()
    for (let i = 0; i + 2 <= padded.length; i++) {
      const gram = padded.slice(i, i + 2)
      counts.set(gram, (counts.get(gram) ?? 0) + 1)
    }
    let norm = 0
    for (const c of counts.values()) norm += c * c
    const scale = (index === 0 ? FIRST_WORD_WEIGHT : 1) / Math.sqrt(norm)
    for (const [gram, c] of counts) out.set(gram, (out.get(gram) ?? 0) + c * scale)
  })
  return out
}

/** The cosine of the angle between two name vectors: 1 for the same direction, 0 for nothing shared. */
export function cosineSimilarity(a: NameVector, b: NameVector): number {
  let dot = 0
  let na = 0
  let nb = 0
  for (const [k, v] of a) {
    na += v * v
    const w = b.get(k)
    if (w !== undefined) dot += v * w
  }
  for (const v of b.values()) nb += v * v
  if (na === 0 || nb === 0) return 0
  // Rounded to 6 places so a similarity reads the same on every engine and in every answer.
  return Math.round((dot / Math.sqrt(na * nb)) * 1e6) / 1e6
}

/** A named thing to cluster: its id and the name its vector comes from. */
export interface NamedItem {
  id: string
  name: string
}

/** One near-duplicate pair, similarity rounded to 6 places. */
export interface SimilarPair {
  a: string
  b: string
  similarity: number
}

/** A name vector packed for many comparisons: interned feature ids in ascending order, and its norm. */
interface PackedVector {
  keys: Int32Array
  weights: Float64Array
  norm: number
}

function pack(vectors: readonly NameVector[]): PackedVector[] {
  const ids = new Map<string, number>()
  return vectors.map((v) => {
    const entries = [...v].map(([k, w]) => {
      let id = ids.get(k)
      if (id === undefined) {
        id = ids.size
        ids.set(k, id)
      }
      return [id, w] as const
    })
    entries.sort((x, y) => x[0] - y[0])
    let norm = 0
    for (const [, w] of entries) norm += w * w
    return {
      keys: Int32Array.from(entries.map((e) => e[0])),
      weights: Float64Array.from(entries.map((e) => e[1])),
      norm,
    }
  })
}

function packedCosine(a: PackedVector, b: PackedVector): number {
  if (a.norm === 0 || b.norm === 0) return 0
  let dot = 0
  let i = 0
  let j = 0
  while (i < a.keys.length && j < b.keys.length) {
    const ka = a.keys[i]!
    const kb = b.keys[j]!
    if (ka === kb) dot += a.weights[i++]! * b.weights[j++]!
    else if (ka < kb) i++
    else j++
  }
  return Math.round((dot / Math.sqrt(a.norm * b.norm)) * 1e6) / 1e6
}

/**
 * Every pair of items at least `threshold` similar, in input order (a before b). The vectors
 * are packed once (features interned and sorted, norms precomputed), so each of the n²/2
 * comparisons is one merge of two short sorted arrays.
 */
export function similarPairs(items: readonly NamedItem[], threshold = DUPLICATE_THRESHOLD): SimilarPair[] {
  const vectors = pack(items.map((i) => nameVector(i.name)))
  const out: SimilarPair[] = []
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) {
      const similarity = packedCosine(vectors[i]!, vectors[j]!)
      if (similarity >= threshold) out.push({ a: items[i]!.id, b: items[j]!.id, similarity })
    }
  }
  return out
}

/**
 * Near-duplicate groups: the connected parts of the graph whose edges are pairs at least
 * `threshold` similar (single linkage), each of two or more ids in input order, groups
 * ordered by their first member's place in the input.
 */
export function duplicateGroups(items: readonly NamedItem[], threshold = DUPLICATE_THRESHOLD): string[][] {
  const parent = items.map((_, i) => i)
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]!]!
      i = parent[i]!
    }
    return i
  }
  const index = new Map(items.map((item, i) => [item.id, i]))
  for (const pair of similarPairs(items, threshold)) {
    const ra = find(index.get(pair.a)!)
    const rb = find(index.get(pair.b)!)
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb)
  }
  const groups = new Map<number, string[]>()
  items.forEach((item, i) => {
    const root = find(i)
    groups.set(root, [...(groups.get(root) ?? []), item.id])
  })
  return [...groups.values()].filter((g) => g.length > 1)
}
