import { normalizePayeeName } from '@hearth/engine'
import Fuse from 'fuse.js'

/** What a name in a question may be. */
export type NameKind = 'category' | 'payee' | 'account' | 'tag'

/** Something with a name a question may mention; `alias` is another spelling of the same item. */
export interface Named {
  id: string
  name: string
  kind: NameKind
  /** The spelling matched: the item's name or one of its aliases. */
  spelling: string
  /** Categories in an income group. */
  isIncome?: boolean
}

/** A name found in a question, and where. */
export interface Mention {
  item: Named
  /** 0 is exact; fuse's distance otherwise. */
  score: number
  /** The words of the question it was found in. */
  words: string
}

/** The words that never start or end a name on their own. */
const STOP = new Set(
  `a an the on in at for to from of my our we i me us you how much many did do does what whats was were is are this that
   last month year week since spend spent spending money all every as into under with and or by than more less get got have
   has been much total average avg per times time count number which who where most least top biggest largest compare
   versus vs against between left over budget bills bill income earn earned paid pay payee payees category categories
   account accounts tag tags transaction transactions so far it its there their each any some ago just only also`
    .split(/\s+/)
    .filter(Boolean),
)

/** Everyday words for common categories, tried only when the household has one by that word. */
const SYNONYMS: Record<string, string[]> = {
  takeout: ['dining', 'restaurant', 'takeout', 'eating out'],
  'take out': ['dining', 'restaurant', 'takeout', 'eating out'],
  'eating out': ['dining', 'restaurant', 'eating out'],
  'eat out': ['dining', 'restaurant', 'eating out'],
  'ate out': ['dining', 'restaurant', 'eating out'],
  restaurants: ['dining', 'restaurant'],
  restaurant: ['dining', 'restaurant'],
  food: ['groceries', 'food'],
  grocery: ['groceries'],
  'grocery store': ['groceries'],
  supermarket: ['groceries'],
  gas: ['gas', 'fuel', 'transport'],
  fuel: ['fuel', 'gas', 'transport'],
  petrol: ['fuel', 'gas', 'transport'],
  subs: ['subscriptions'],
  streaming: ['subscriptions', 'streaming'],
  power: ['utilities', 'electric'],
  electricity: ['utilities', 'electric'],
  'the rent': ['rent'],
  housing: ['rent', 'housing', 'mortgage'],
}

const norm = (s: string) => normalizePayeeName(s)

/** Finds the names a question mentions among the household's categories, payees, accounts and tags. */
export class NameIndex {
  private readonly fuse: Fuse<Named>
  private readonly exact = new Map<string, Named[]>()
  /** Each word of a name ("checking" of Everyday Checking), when one item alone has it. */
  private readonly partial = new Map<string, Named | null>()

  constructor(readonly items: readonly Named[]) {
    for (const item of items) {
      const key = norm(item.spelling)
      if (key) this.exact.set(key, [...(this.exact.get(key) ?? []), item])
      for (const word of new Set(key.split(' '))) {
        if (word.length < 4 || STOP.has(word) || word === key) continue
        const had = this.partial.get(word)
        this.partial.set(word, had === undefined || had?.id === item.id ? item : null)
      }
    }
    this.fuse = new Fuse(items as Named[], {
      keys: ['spelling'],
      includeScore: true,
      ignoreLocation: true,
      threshold: 0.34,
      minMatchCharLength: 3,
      getFn: (item) => norm(item.spelling),
    })
  }

  /** The best item for a run of words, or null. */
  private best(words: string): Mention | null {
    const exact = this.exact.get(words)
    if (exact) return { item: exact[0]!, score: 0, words }
    const synonym = SYNONYMS[words]
    if (synonym) {
      const hits = this.items.filter(
        (i) =>
          i.kind === 'category' &&
          synonym.some((w) => norm(i.spelling).split(' ').includes(w) || norm(i.spelling) === w),
      )
      const ids = new Set(hits.map((h) => h.id))
      if (ids.size === 1) return { item: hits[0]!, score: 0.05, words }
    }
    const part = this.partial.get(words)
    if (part) return { item: part, score: 0.1, words }
    // A typo keeps a word's first letter and most of its length; shorter words are too easily another.
    if (words.length < 5) return null
    const [hit] = this.fuse.search(words, { limit: 1 })
    if (!hit || hit.score === undefined || hit.score > 0.3) return null
    const name = norm(hit.item.spelling)
    if (name[0] !== words[0]) return null
    const ratio = words.length / name.length
    if (ratio < 0.8 || ratio > 1.25) return null
    return { item: hit.item, score: Math.max(hit.score, 0.01), words }
  }

  /**
   * The names a text mentions, left to right, without overlaps: every run of one to three words is
   * compared, longest and closest first, so "dining out" wins over "out" and "grocries" finds
   * Groceries.
   */
  find(text: string): Mention[] {
    const words = norm(text).split(' ').filter(Boolean)
    const candidates: (Mention & { start: number; end: number })[] = []
    for (let i = 0; i < words.length; i++) {
      for (let n = 3; n >= 1; n--) {
        if (i + n > words.length) continue
        const run = words.slice(i, i + n)
        if (STOP.has(run[0]!) || STOP.has(run.at(-1)!)) {
          if (!(n === 2 && SYNONYMS[run.join(' ')])) continue
        }
        const hit = this.best(run.join(' '))
        if (hit) candidates.push({ ...hit, start: i, end: i + n })
      }
    }
    // More of the question covered wins ("pizza planit" over "pizza"), then the closer match.
    candidates.sort((a, b) => b.end - b.start - (a.end - a.start) || a.score - b.score || a.start - b.start)
    const taken = new Set<number>()
    const out: (Mention & { start: number })[] = []
    for (const c of candidates) {
      let free = true
      for (let k = c.start; k < c.end; k++) if (taken.has(k)) free = false
      if (!free) continue
      for (let k = c.start; k < c.end; k++) taken.add(k)
      out.push(c)
    }
    return out
      .sort((a, b) => a.start - b.start)
      .map(({ item, score, words: w }) => ({ item, score, words: w }))
  }
}
