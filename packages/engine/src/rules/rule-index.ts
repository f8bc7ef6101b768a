import type { PreparedFacts } from './conditions.ts'
import type { Condition, Predicate } from './schema.ts'

/** The fields an index key can come from. */
type KeyField = 'payee_name' | 'imported_payee' | 'memo' | 'payee_id' | 'category_id' | 'account_id'

/** The length of the substrings `contains` conditions are indexed by. */
const GRAM = 3

/** What one rule is found by: exact field values, substrings of a text field, or nothing (always tried). */
type RuleKeys = { exact: [KeyField, string][]; grams: [KeyField, string][] } | 'always'

/**
 * Which conditions of a rule an index can answer: an id or text equal to one of some values, or a
 * text containing a needle of at least three characters (found by the needle's first three).
 */
function keysOfCondition(c: Condition): RuleKeys {
  switch (c.field) {
    case 'payee_id':
    case 'category_id':
    case 'account_id':
      if (c.op === 'is') return { exact: [[c.field, c.value ?? '']], grams: [] }
      if (c.op === 'oneOf')
        return { exact: c.value.map((v) => [c.field, v] as [KeyField, string]), grams: [] }
      return 'always'
    case 'payee_name':
    case 'imported_payee':
    case 'memo':
      if (c.op === 'is') return { exact: [[c.field, (c.value ?? '').toLowerCase()]], grams: [] }
      if (c.op === 'oneOf') {
        const values = c.value.filter((v) => v !== '')
        return { exact: values.map((v) => [c.field, v.toLowerCase()] as [KeyField, string]), grams: [] }
      }
      if (c.op === 'contains' && c.value.length >= GRAM)
        return { exact: [], grams: [[c.field, c.value.toLowerCase().slice(0, GRAM)]] }
      return 'always'
    default:
      return 'always'
  }
}

/** Ranks keyable conditions: an exact id narrows most, a substring least. */
function selectivity(keys: RuleKeys): number {
  if (keys === 'always') return 0
  if (keys.grams.length > 0) return 1
  return keys.exact.some(([f]) => f.endsWith('_id')) ? 3 : 2
}

/**
 * The keys a whole predicate is found by. With `all`, one keyable condition is enough (every
 * match passes it); with `any`, every condition must be keyable, and the rule is found by any.
 */
export function keysOfPredicate(predicate: Predicate): RuleKeys {
  const each = predicate.conditions.map(keysOfCondition)
  if (predicate.combinator === 'all') {
    let best: RuleKeys = 'always'
    for (const keys of each) if (selectivity(keys) > selectivity(best)) best = keys
    return best
  }
  if (each.some((k) => k === 'always')) return 'always'
  const merged = { exact: [] as [KeyField, string][], grams: [] as [KeyField, string][] }
  for (const keys of each as Exclude<RuleKeys, 'always'>[]) {
    merged.exact.push(...keys.exact)
    merged.grams.push(...keys.grams)
  }
  return merged
}

function keyValue(facts: PreparedFacts, field: KeyField): string {
  switch (field) {
    case 'payee_id':
      return facts.payeeId ?? ''
    case 'category_id':
      return facts.categoryId ?? ''
    case 'account_id':
      return facts.accountId
    case 'payee_name':
    case 'imported_payee':
    case 'memo':
      return facts.lower[field]
  }
}

/**
 * Rules indexed by the fields they test, as Actual Budget's rule indexer does, so a row is tested
 * only against rules it could match: those keyed by one of its values, those keyed by a
 * three-character piece of one of its texts, and the few nothing could key. Positions are the
 * rules' places in priority order.
 */
export class RuleIndex {
  private readonly exact = new Map<string, number[]>()
  /** Rules by field, then by a three-character piece of the needle they look for. */
  private readonly grams = new Map<KeyField, Map<string, number[]>>()
  private readonly exactFields = new Set<KeyField>()
  private readonly always: number[] = []
  /** Substring hits by field, then text: rows repeat their payees and memos. */
  private readonly remembered = new Map<KeyField, Map<string, number[]>>()
  /** How many texts `remembered` holds, all fields together. */
  private rememberedCount = 0

  constructor(predicates: readonly Predicate[]) {
    predicates.forEach((predicate, position) => {
      const keys = keysOfPredicate(predicate)
      if (keys === 'always') {
        this.always.push(position)
        return
      }
      for (const [field, value] of keys.exact) {
        this.exactFields.add(field)
        push(this.exact, `${field}\u0000${value}`, position)
      }
      for (const [field, gram] of keys.grams) {
        let byGram = this.grams.get(field)
        if (!byGram) {
          byGram = new Map()
          this.grams.set(field, byGram)
          this.remembered.set(field, new Map())
        }
        push(byGram, gram, position)
      }
    })
  }

  /** The rules keyed by a three-character piece of `text`, in a field that has such rules. */
  private gramHits(field: KeyField, byGram: ReadonlyMap<string, number[]>, text: string): number[] {
    const remembered = this.remembered.get(field)!
    const known = remembered.get(text)
    if (known) return known
    const hits = new Set<number>()
    for (let i = 0; i + GRAM <= text.length; i++) {
      const found = byGram.get(text.slice(i, i + GRAM))
      if (found) for (const p of found) hits.add(p)
    }
    const list = [...hits]
    if (this.rememberedCount >= MAX_REMEMBERED) {
      for (const texts of this.remembered.values()) texts.clear()
      this.rememberedCount = 0
    }
    remembered.set(text, list)
    this.rememberedCount++
    return list
  }

  /** Marks in `mask` every rule the facts could match on the given fields (all indexed fields by default). */
  mark(mask: Uint8Array, facts: PreparedFacts, fields?: readonly KeyField[]): void {
    if (!fields) for (const p of this.always) mask[p] = 1
    for (const field of this.exactFields) {
      if (fields && !fields.includes(field)) continue
      const hits = this.exact.get(`${field}\u0000${keyValue(facts, field)}`)
      if (hits) for (const p of hits) mask[p] = 1
    }
    for (const [field, byGram] of this.grams) {
      if (fields && !fields.includes(field)) continue
      for (const p of this.gramHits(field, byGram, keyValue(facts, field))) mask[p] = 1
    }
  }
}

/** How many texts the index remembers the substring hits of. */
const MAX_REMEMBERED = 10_000

function push(map: Map<string, number[]>, key: string, position: number): void {
  const list = map.get(key)
  if (list) {
    if (list[list.length - 1] !== position) list.push(position)
  } else map.set(key, [position])
}
