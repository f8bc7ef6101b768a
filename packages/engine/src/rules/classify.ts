import { compilePredicate, type FactTest, prepareFacts, type RuleFacts } from './conditions.ts'
import { RuleIndex } from './rule-index.ts'
import type { Action, Predicate } from './schema.ts'

/** The longest memo a rule may leave; an append or prepend past it is not made. */
export const MAX_MEMO = 1000

/** A rule as evaluation needs it: in priority order, enabled, with its action. */
export interface RuleSpec {
  id: string
  predicate: Predicate
  action: Action
}

/** One field a rule changed on a row: the value before and after. */
export interface FieldChange<T> {
  from: T
  to: T
}

/** What one rule changed on one row. */
export interface RuleChanges {
  categoryId?: FieldChange<string | null>
  payeeId?: FieldChange<string | null>
  memo?: FieldChange<string | null>
  addedTagIds?: string[]
  addedFlagIds?: string[]
}

/** A row as classification sees it: its facts, plus what an action must not or need not change. */
export interface RuleSubject extends RuleFacts {
  tagIds: readonly string[]
  flagIds: readonly string[]
  /** A split row carries its categories on its parts, so no rule sets its own. */
  hasSplits: boolean
}

/** Fields no rule may set on this row (those the request set explicitly). */
export interface Locks {
  categoryId?: boolean
  payeeId?: boolean
}

/** What classifying one row found: its new values and which rule changed what. */
export interface Classification {
  categoryId: string | null
  payeeId: string | null
  memo: string | null
  addedTagIds: string[]
  addedFlagIds: string[]
  applications: { ruleId: string; changes: RuleChanges }[]
}

/**
 * The memo with a rule's pieces added, each only when the memo does not already start (prepend) or
 * end (append) with it, so applying a rule again changes nothing.
 */
export function withMemoPieces(memo: string, prepend?: string, append?: string): string {
  let out = memo
  if (prepend !== undefined && !out.startsWith(prepend)) out = `${prepend}${out}`
  if (append !== undefined && !out.endsWith(append)) out = `${out}${append}`
  return out
}

/**
 * Enabled rules compiled once, in priority order, with an index by the fields they test.
 * `classify` is pure: the same rules, row and payee names give the same answer on every replica.
 */
export class RuleSet {
  private readonly tests: FactTest[]
  private readonly index: RuleIndex
  /** Which rules the current row may match; reused row after row. */
  private readonly mask: Uint8Array
  /** One past the last rule (in priority order) that sets a payee: no rule from there on can rename one. */
  private readonly payeeRulesEnd: number

  constructor(
    readonly rules: readonly RuleSpec[],
    /** Payee names by id, for `payee_name` after a rule sets the payee. */
    private readonly payeeNames: ReadonlyMap<string, string>,
  ) {
    this.tests = rules.map((r) => compilePredicate(r.predicate))
    this.index = new RuleIndex(rules.map((r) => r.predicate))
    this.mask = new Uint8Array(rules.length)
    this.payeeRulesEnd = rules.findLastIndex((r) => r.action.setPayeeId !== undefined) + 1
  }

  /** Whether any rule sets a payee. */
  get setsPayees(): boolean {
    return this.payeeRulesEnd > 0
  }

  get size(): number {
    return this.rules.length
  }

  /**
   * Runs the rules over one row in priority order. Each sees the row as earlier rules left it;
   * the first matching rule to set a field wins it (later rules leave it alone), tags and flags
   * add up, and a matching rule with `stopProcessing` ends the run for this row.
   */
  classify(subject: RuleSubject, locks: Locks = {}): Classification {
    return this.run(subject, locks, this.rules.length, false)
  }

  /**
   * The rule that would set this row's payee, and the payee, as `classify` would find them, or
   * null: the rules run in priority order as there, but only until the payee is won or no later
   * rule sets one, since later rules cannot change it (a rule's stop, or the category or memo an
   * earlier rule sets, still counts on the way).
   */
  payeeRename(
    subject: RuleSubject,
    locks: Locks = {},
  ): { ruleId: string; change: FieldChange<string | null> } | null {
    if (this.payeeRulesEnd === 0 || locks.payeeId) return null
    const result = this.run(subject, locks, this.payeeRulesEnd, true)
    const renamed = result.applications.find((a) => a.changes.payeeId !== undefined)
    return renamed ? { ruleId: renamed.ruleId, change: renamed.changes.payeeId! } : null
  }

  private run(subject: RuleSubject, locks: Locks, end: number, untilPayee: boolean): Classification {
    const facts = prepareFacts(subject)
    const out: Classification = {
      categoryId: subject.categoryId,
      payeeId: subject.payeeId,
      memo: subject.memo,
      addedTagIds: [],
      addedFlagIds: [],
      applications: [],
    }
    if (this.rules.length === 0) return out
    const mask = this.mask
    mask.fill(0)
    this.index.mark(mask, facts)
    let categoryWon = Boolean(locks.categoryId) || subject.hasSplits
    let payeeWon = Boolean(locks.payeeId)
    let memoWon = false
    const tags = new Set(subject.tagIds)
    const flags = new Set(subject.flagIds)
    for (let i = 0; i < end; i++) {
      if (mask[i] === 0 || !this.tests[i]!(facts)) continue
      const { id, action } = this.rules[i]!
      const changes: RuleChanges = {}
      if (action.setPayeeId !== undefined && !payeeWon) {
        payeeWon = true
        if (facts.payeeId !== action.setPayeeId) {
          changes.payeeId = { from: facts.payeeId, to: action.setPayeeId }
          facts.payeeId = action.setPayeeId
          facts.payeeName = this.payeeNames.get(action.setPayeeId) ?? null
          facts.lower.payee_name = (facts.payeeName ?? '').toLowerCase()
          this.index.mark(mask, facts, ['payee_id', 'payee_name'])
        }
      }
      if (action.setCategoryId !== undefined && !categoryWon) {
        categoryWon = true
        if (facts.categoryId !== action.setCategoryId) {
          changes.categoryId = { from: facts.categoryId, to: action.setCategoryId }
          facts.categoryId = action.setCategoryId
          this.index.mark(mask, facts, ['category_id'])
        }
      }
      if ((action.appendMemo !== undefined || action.prependMemo !== undefined) && !memoWon) {
        memoWon = true
        const memo = withMemoPieces(facts.memo ?? '', action.prependMemo, action.appendMemo)
        if (memo.length <= MAX_MEMO && memo !== (facts.memo ?? '')) {
          changes.memo = { from: facts.memo, to: memo }
          facts.memo = memo
          facts.lower.memo = memo.toLowerCase()
          this.index.mark(mask, facts, ['memo'])
        }
      }
      const addedTags = (action.addTagIds ?? []).filter((t) => !tags.has(t))
      if (addedTags.length > 0) {
        for (const t of addedTags) tags.add(t)
        changes.addedTagIds = addedTags
        out.addedTagIds.push(...addedTags)
      }
      const addedFlags = (action.addFlagIds ?? []).filter((f) => !flags.has(f))
      if (addedFlags.length > 0) {
        for (const f of addedFlags) flags.add(f)
        changes.addedFlagIds = addedFlags
        out.addedFlagIds.push(...addedFlags)
      }
      if (Object.keys(changes).length > 0) out.applications.push({ ruleId: id, changes })
      if (action.stopProcessing || (untilPayee && payeeWon)) break
    }
    out.categoryId = facts.categoryId
    out.payeeId = facts.payeeId
    out.memo = facts.memo
    return out
  }
}
