import { RE2JS } from 're2js'
import { addDays } from '../ledger/model.ts'
import type {
  AmountCondition,
  Condition,
  DateCondition,
  IdCondition,
  Predicate,
  TextCondition,
} from './schema.ts'

/**
 * What a rule sees of a transaction. Text compares ignoring case; a missing text counts as the
 * empty string, as in Actual Budget.
 */
export interface RuleFacts {
  payeeId: string | null
  /** The payee's current name; null without a payee. */
  payeeName: string | null
  /** The payee text the bank sent with an imported row; null on other rows. */
  importedPayee: string | null
  memo: string | null
  categoryId: string | null
  accountId: string
  amountCents: number
  /** YYYY-MM-DD. */
  date: string
}

/** Facts with their texts lower-cased once, as conditions and the index compare them. */
export interface PreparedFacts extends RuleFacts {
  lower: { payee_name: string; imported_payee: string; memo: string }
}

/** Lower-cases the texts once per row rather than once per condition. */
export function prepareFacts(facts: RuleFacts): PreparedFacts {
  return {
    ...facts,
    lower: {
      payee_name: (facts.payeeName ?? '').toLowerCase(),
      imported_payee: (facts.importedPayee ?? '').toLowerCase(),
      memo: (facts.memo ?? '').toLowerCase(),
    },
  }
}

/** How many texts a `matches` condition remembers its answer for. */
const MAX_REMEMBERED = 10_000

/** A compiled condition: true when the facts pass it. */
export type FactTest = (facts: PreparedFacts) => boolean

/** How far `approx` reaches around an amount: 7.5% of it, rounded half up (Actual's threshold). */
export function approxThreshold(cents: number): number {
  // Integer arithmetic: |v| * 0.075 in floating point can land a hair under a .5.
  return Math.floor((Math.abs(cents) * 75 + 500) / 1000)
}

function textOf(facts: PreparedFacts, field: 'payee_name' | 'imported_payee' | 'memo'): string {
  return facts.lower[field]
}

function idOf(facts: RuleFacts, field: 'payee_id' | 'category_id' | 'account_id'): string | null {
  return field === 'payee_id' ? facts.payeeId : field === 'category_id' ? facts.categoryId : facts.accountId
}

/** The amount a money field compares, or null when the row is on the other side (inflow vs outflow). */
export function amountOf(facts: RuleFacts, field: 'amount' | 'inflow' | 'outflow'): number | null {
  const a = facts.amountCents
  if (field === 'inflow') return a < 0 ? null : a
  if (field === 'outflow') return a > 0 ? null : -a
  return a
}

/** Compiles one condition into a test; a `matches` pattern is compiled once, for RE2's linear-time matcher. */
export function compileCondition(c: Condition): FactTest {
  switch (c.field) {
    case 'payee_name':
    case 'imported_payee':
    case 'memo':
      return compileText(c)
    case 'payee_id':
    case 'category_id':
    case 'account_id':
      return compileId(c)
    case 'amount':
    case 'inflow':
    case 'outflow':
      return compileAmount(c)
    case 'date':
      return compileDate(c)
  }
}

function compileText(c: TextCondition): FactTest {
  const field = c.field
  switch (c.op) {
    case 'is': {
      const want = (c.value ?? '').toLowerCase()
      return (f) => textOf(f, field) === want
    }
    case 'isNot': {
      const want = (c.value ?? '').toLowerCase()
      return (f) => textOf(f, field) !== want
    }
    case 'contains': {
      const want = c.value.toLowerCase()
      return (f) => textOf(f, field).includes(want)
    }
    case 'doesNotContain': {
      const want = c.value.toLowerCase()
      return (f) => !textOf(f, field).includes(want)
    }
    case 'matches': {
      const re = RE2JS.compile(c.value, RE2JS.CASE_INSENSITIVE)
      // Rows repeat their payees and memos, and RE2 in JavaScript costs about a microsecond a
      // call: remembering answers by text keeps a 100,000-row back-fill from paying it each time.
      const answers = new Map<string, boolean>()
      return (f) => {
        const text = textOf(f, field)
        let hit = answers.get(text)
        if (hit === undefined) {
          if (answers.size >= MAX_REMEMBERED) answers.clear()
          hit = re.test(text)
          answers.set(text, hit)
        }
        return hit
      }
    }
    case 'oneOf': {
      const want = new Set(c.value.filter((v) => v !== '').map((v) => v.toLowerCase()))
      return (f) => want.has(textOf(f, field))
    }
    case 'notOneOf': {
      const want = new Set(c.value.filter((v) => v !== '').map((v) => v.toLowerCase()))
      return (f) => !want.has(textOf(f, field))
    }
  }
}

function compileId(c: IdCondition): FactTest {
  const field = c.field
  switch (c.op) {
    case 'is': {
      const want = c.value
      return (f) => idOf(f, field) === want
    }
    case 'isNot': {
      const want = c.value
      return (f) => idOf(f, field) !== want
    }
    case 'oneOf': {
      const want = new Set(c.value)
      return (f) => {
        const id = idOf(f, field)
        return id !== null && want.has(id)
      }
    }
    case 'notOneOf': {
      const want = new Set(c.value)
      return (f) => {
        const id = idOf(f, field)
        return id !== null && !want.has(id)
      }
    }
  }
}

function compileAmount(c: AmountCondition): FactTest {
  const field = c.field
  let inRange: (n: number) => boolean
  if (c.op === 'between') {
    const lo = Math.min(c.value.min, c.value.max)
    const hi = Math.max(c.value.min, c.value.max)
    inRange = (n) => n >= lo && n <= hi
  } else {
    const v = c.value
    switch (c.op) {
      case 'is':
        inRange = (n) => n === v
        break
      case 'gt':
        inRange = (n) => n > v
        break
      case 'gte':
        inRange = (n) => n >= v
        break
      case 'lt':
        inRange = (n) => n < v
        break
      case 'lte':
        inRange = (n) => n <= v
        break
      case 'approx': {
        const t = approxThreshold(v)
        inRange = (n) => n >= v - t && n <= v + t
        break
      }
    }
  }
  return (f) => {
    const n = amountOf(f, field)
    return n !== null && inRange(n)
  }
}

function compileDate(c: DateCondition): FactTest {
  const v = c.value
  switch (c.op) {
    case 'is':
      // A month (YYYY-MM) or a year (YYYY) matches every day in it.
      return v.length === 10 ? (f) => f.date === v : (f) => f.date.startsWith(`${v}-`)
    case 'before':
      return (f) => f.date < v
    case 'after':
      return (f) => f.date > v
    case 'onOrBefore':
      return (f) => f.date <= v
    case 'onOrAfter':
      return (f) => f.date >= v
    case 'approx': {
      const lo = addDays(v, -2)
      const hi = addDays(v, 2)
      return (f) => f.date >= lo && f.date <= hi
    }
  }
}

/** Compiles a predicate: every condition must pass (`all`) or at least one (`any`). */
export function compilePredicate(predicate: Predicate): FactTest {
  const tests = predicate.conditions.map(compileCondition)
  if (tests.length === 1) return tests[0]!
  return predicate.combinator === 'all' ? (f) => tests.every((t) => t(f)) : (f) => tests.some((t) => t(f))
}
