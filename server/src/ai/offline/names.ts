import { cosineSimilarity, nameVector, normalizePayeeName } from '@hearth/engine'

/** Something with a name a question may mention. */
export interface Named {
  id: string
  name: string
}

/** How similar a mention must be to count (typos keep the consonant skeleton, so they score high). */
const THRESHOLD = 0.8

const STOP = new Set(
  'a an the on in at for to from of my our we i me how much many did do does what was were is are this last month year week since spend spent spending money all every as into under with and or by than more less get got have has been'.split(
    ' ',
  ),
)

/**
 * The item a text names best, with the payee matching's own name vectors, so "grocries" finds
 * Groceries and "netflx" finds Netflix. Exact mentions win; otherwise every run of one to three
 * words is compared, and the most similar item above the threshold wins.
 */
export function findNamed<T extends Named>(
  text: string,
  items: readonly T[],
): { item: T; score: number } | null {
  const normalized = ` ${normalizePayeeName(text)} `
  let best: { item: T; score: number } | null = null
  const words = normalizePayeeName(text)
    .split(' ')
    .filter((w) => w.length > 0)
  const windows: string[] = []
  for (let i = 0; i < words.length; i++) {
    for (let n = 1; n <= 3 && i + n <= words.length; n++) {
      const run = words.slice(i, i + n)
      if (STOP.has(run[0]!) || STOP.has(run.at(-1)!)) continue
      windows.push(run.join(' '))
    }
  }
  const vectors = windows.map((w) => nameVector(w))
  for (const item of items) {
    const name = normalizePayeeName(item.name)
    if (name.length === 0) continue
    let score = normalized.includes(` ${name} `) ? 1 + name.length / 1000 : 0
    if (score === 0) {
      const v = nameVector(item.name)
      for (const w of vectors) score = Math.max(score, cosineSimilarity(v, w))
    }
    if (score >= THRESHOLD && (!best || score > best.score)) best = { item, score }
  }
  return best
}
