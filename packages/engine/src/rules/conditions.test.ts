import { describe, expect, it } from 'vitest'
import { addDays } from '../ledger/model.ts'
import {
  approxThreshold,
  compileCondition,
  compilePredicate,
  prepareFacts,
  type RuleFacts,
} from './conditions.ts'
import { ConditionSchema, PredicateSchema } from './schema.ts'

const PAYEE = '01JD5Z9Y6XQ3M4N5P6R7S8T9VA'
const OTHER = '01JD5Z9Y6XQ3M4N5P6R7S8T9VB'
const ACCOUNT = '01JD5Z9Y6XQ3M4N5P6R7S8T9VC'

const base: RuleFacts = {
  payeeId: PAYEE,
  payeeName: 'Amazon Marketplace',
  importedPayee: null,
  memo: null,
  categoryId: null,
  accountId: ACCOUNT,
  amountCents: -1535,
  date: '2020-08-07',
}

/** Whether a condition written as the API takes it passes these facts. */
function passes(condition: unknown, facts: Partial<RuleFacts>): boolean {
  return compileCondition(ConditionSchema.parse(condition))(prepareFacts({ ...base, ...facts }))
}

describe('text conditions (payee_name, imported_payee, memo)', () => {
  it('is and isNot ignore case; an empty value means no text', () => {
    expect(passes({ field: 'memo', op: 'is', value: 'foo' }, { memo: 'FOO' })).toBe(true)
    expect(passes({ field: 'memo', op: 'is', value: 'foo' }, { memo: 'foo2' })).toBe(false)
    expect(passes({ field: 'memo', op: 'is', value: '' }, { memo: null })).toBe(true)
    expect(passes({ field: 'memo', op: 'is', value: null }, { memo: null })).toBe(true)
    expect(passes({ field: 'memo', op: 'isNot', value: 'foo' }, { memo: null })).toBe(true)
    expect(passes({ field: 'memo', op: 'isNot', value: 'foo' }, { memo: 'Foo' })).toBe(false)
  })

  it('contains and doesNotContain search ignoring case; a missing text contains nothing', () => {
    const c = { field: 'memo', op: 'contains', value: 'foo' }
    expect(passes(c, { memo: 'bar foo baz' })).toBe(true)
    expect(passes(c, { memo: 'bar FOOb' })).toBe(true)
    expect(passes(c, { memo: 'bfo' })).toBe(false)
    expect(passes(c, { memo: 'f o o' })).toBe(false)
    expect(passes(c, { memo: null })).toBe(false)
    const not = { field: 'memo', op: 'doesNotContain', value: 'foo' }
    expect(passes(not, { memo: 'bar' })).toBe(true)
    expect(passes(not, { memo: 'xFOOx' })).toBe(false)
    expect(passes(not, { memo: null })).toBe(true)
  })

  it('matches runs a regular expression ignoring case, searching anywhere unless anchored', () => {
    const c = { field: 'memo', op: 'matches', value: '^fo*$' }
    expect(passes(c, { memo: 'foo' })).toBe(true)
    expect(passes(c, { memo: 'FOOOO' })).toBe(true)
    expect(passes(c, { memo: 'bar foo baz' })).toBe(false)
    expect(passes(c, { memo: 'foob' })).toBe(false)
    expect(passes(c, { memo: null })).toBe(false)
    // Case-insensitive by flag, not by lower-casing the pattern: \D still means a non-digit.
    expect(passes({ field: 'memo', op: 'matches', value: '^\\D+$' }, { memo: 'ABC' })).toBe(true)
    expect(passes({ field: 'payee_name', op: 'matches', value: 'amaz.n' }, {})).toBe(true)
  })

  it('oneOf and notOneOf compare whole texts ignoring case; empty list entries are ignored', () => {
    const c = { field: 'payee_name', op: 'oneOf', value: ['amazon marketplace', 'ebay', ''] }
    expect(passes(c, {})).toBe(true)
    expect(passes(c, { payeeName: 'EBAY' })).toBe(true)
    expect(passes(c, { payeeName: 'Amazon' })).toBe(false)
    expect(passes(c, { payeeName: null })).toBe(false)
    const not = { field: 'payee_name', op: 'notOneOf', value: ['ebay'] }
    expect(passes(not, {})).toBe(true)
    expect(passes(not, { payeeName: 'eBay' })).toBe(false)
  })

  it('imported_payee reads the bank text, absent on hand-entered rows', () => {
    const c = { field: 'imported_payee', op: 'contains', value: 'amzn' }
    expect(passes(c, { importedPayee: 'AMZN Mktp US*2K1' })).toBe(true)
    expect(passes(c, { importedPayee: null })).toBe(false)
  })
})

describe('id conditions (payee_id, category_id, account_id)', () => {
  it('is and isNot compare ids; null means none', () => {
    expect(passes({ field: 'payee_id', op: 'is', value: PAYEE }, {})).toBe(true)
    expect(passes({ field: 'payee_id', op: 'is', value: OTHER }, {})).toBe(false)
    expect(passes({ field: 'category_id', op: 'is', value: null }, { categoryId: null })).toBe(true)
    expect(passes({ field: 'category_id', op: 'is', value: null }, { categoryId: OTHER })).toBe(false)
    expect(passes({ field: 'category_id', op: 'isNot', value: null }, { categoryId: OTHER })).toBe(true)
    expect(passes({ field: 'account_id', op: 'isNot', value: ACCOUNT }, {})).toBe(false)
  })

  it('oneOf and notOneOf never match a row without the id', () => {
    expect(passes({ field: 'payee_id', op: 'oneOf', value: [OTHER, PAYEE] }, {})).toBe(true)
    expect(passes({ field: 'payee_id', op: 'oneOf', value: [OTHER] }, {})).toBe(false)
    expect(passes({ field: 'payee_id', op: 'oneOf', value: [OTHER] }, { payeeId: null })).toBe(false)
    expect(passes({ field: 'payee_id', op: 'notOneOf', value: [OTHER] }, {})).toBe(true)
    expect(passes({ field: 'payee_id', op: 'notOneOf', value: [OTHER] }, { payeeId: null })).toBe(false)
  })
})

describe('amount conditions', () => {
  it('compares signed cents with is, gt, gte, lt and lte', () => {
    expect(passes({ field: 'amount', op: 'is', value: 155 }, { amountCents: 155 })).toBe(true)
    expect(passes({ field: 'amount', op: 'is', value: '155' }, { amountCents: 167 })).toBe(false)
    expect(passes({ field: 'amount', op: 'gt', value: 155 }, { amountCents: 155 })).toBe(false)
    expect(passes({ field: 'amount', op: 'gt', value: 155 }, { amountCents: 167 })).toBe(true)
    expect(passes({ field: 'amount', op: 'gte', value: 155 }, { amountCents: 155 })).toBe(true)
    expect(passes({ field: 'amount', op: 'gte', value: 155 }, { amountCents: 150 })).toBe(false)
    expect(passes({ field: 'amount', op: 'lt', value: 155 }, { amountCents: 155 })).toBe(false)
    expect(passes({ field: 'amount', op: 'lt', value: 155 }, { amountCents: 150 })).toBe(true)
    expect(passes({ field: 'amount', op: 'lte', value: 155 }, { amountCents: 155 })).toBe(true)
    expect(passes({ field: 'amount', op: 'lte', value: 155 }, { amountCents: 167 })).toBe(false)
  })

  it('between includes both bounds, given in either order', () => {
    const c = { field: 'amount', op: 'between', value: { min: 32, max: 86 } }
    expect([30, 32, 80, 86, 90].map((a) => passes(c, { amountCents: a }))).toEqual([
      false,
      true,
      true,
      true,
      false,
    ])
    const swapped = { field: 'amount', op: 'between', value: { min: -16, max: -20 } }
    expect(passes(swapped, { amountCents: -18 })).toBe(true)
    expect(passes(swapped, { amountCents: -12 })).toBe(false)
  })

  it('approx reaches 7.5% either side, rounded half up, bounds included', () => {
    expect(approxThreshold(1535)).toBe(115)
    expect(approxThreshold(100)).toBe(8)
    expect(approxThreshold(-100)).toBe(8)
    expect(approxThreshold(0)).toBe(0)
    const c = { field: 'amount', op: 'approx', value: 1535 }
    expect([1300, 1419, 1420, 1540, 1650, 1651, 1800].map((a) => passes(c, { amountCents: a }))).toEqual([
      false,
      false,
      true,
      true,
      true,
      false,
      false,
    ])
    expect(passes({ field: 'amount', op: 'approx', value: 0 }, { amountCents: 0 })).toBe(true)
    expect(passes({ field: 'amount', op: 'approx', value: 0 }, { amountCents: 1 })).toBe(false)
  })

  it('inflow sees only money in; outflow sees money out as a positive number; zero is both', () => {
    expect(passes({ field: 'outflow', op: 'gt', value: 1000 }, { amountCents: -1535 })).toBe(true)
    expect(passes({ field: 'outflow', op: 'gt', value: 1000 }, { amountCents: 1535 })).toBe(false)
    expect(passes({ field: 'inflow', op: 'gt', value: 1000 }, { amountCents: 1535 })).toBe(true)
    expect(passes({ field: 'inflow', op: 'gt', value: 1000 }, { amountCents: -1535 })).toBe(false)
    expect(passes({ field: 'inflow', op: 'is', value: 0 }, { amountCents: 0 })).toBe(true)
    expect(passes({ field: 'outflow', op: 'is', value: 0 }, { amountCents: 0 })).toBe(true)
    expect(passes({ field: 'outflow', op: 'approx', value: 1535 }, { amountCents: -1650 })).toBe(true)
  })
})

describe('date conditions', () => {
  it('is matches a day, or every day of a month or year', () => {
    expect(passes({ field: 'date', op: 'is', value: '2020-08-10' }, { date: '2020-08-05' })).toBe(false)
    expect(passes({ field: 'date', op: 'is', value: '2020-08-10' }, { date: '2020-08-10' })).toBe(true)
    expect(passes({ field: 'date', op: 'is', value: '2020-08' }, { date: '2020-08-31' })).toBe(true)
    expect(passes({ field: 'date', op: 'is', value: '2020-08' }, { date: '2020-09-01' })).toBe(false)
    expect(passes({ field: 'date', op: 'is', value: '2020' }, { date: '2020-12-31' })).toBe(true)
    expect(passes({ field: 'date', op: 'is', value: '2020' }, { date: '2019-12-31' })).toBe(false)
  })

  it('before and after are strict; onOrBefore and onOrAfter include the day', () => {
    expect(passes({ field: 'date', op: 'after', value: '2020-08-10' }, { date: '2020-08-11' })).toBe(true)
    expect(passes({ field: 'date', op: 'after', value: '2020-08-10' }, { date: '2020-08-10' })).toBe(false)
    expect(passes({ field: 'date', op: 'before', value: '2020-08-10' }, { date: '2020-08-09' })).toBe(true)
    expect(passes({ field: 'date', op: 'before', value: '2020-08-10' }, { date: '2020-08-10' })).toBe(false)
    expect(passes({ field: 'date', op: 'onOrAfter', value: '2020-08-10' }, { date: '2020-08-10' })).toBe(true)
    expect(passes({ field: 'date', op: 'onOrBefore', value: '2020-08-10' }, { date: '2020-08-11' })).toBe(
      false,
    )
  })

  it('approx reaches two days either side, across month and year ends', () => {
    const c = { field: 'date', op: 'approx', value: '2020-08-07' }
    expect(
      ['2020-08-04', '2020-08-05', '2020-08-09', '2020-08-10'].map((d) => passes(c, { date: d })),
    ).toEqual([false, true, true, false])
    expect(addDays('2020-12-31', 2)).toBe('2021-01-02')
    expect(addDays('2020-03-01', -2)).toBe('2020-02-28')
    expect(passes({ field: 'date', op: 'approx', value: '2021-01-01' }, { date: '2020-12-30' })).toBe(true)
  })
})

describe('predicates', () => {
  const amazon = { field: 'payee_name', op: 'contains', value: 'amazon' }
  const big = { field: 'outflow', op: 'gt', value: 10000 }

  it('all needs every condition; any needs one', () => {
    const all = compilePredicate(PredicateSchema.parse({ combinator: 'all', conditions: [amazon, big] }))
    const any = compilePredicate(PredicateSchema.parse({ combinator: 'any', conditions: [amazon, big] }))
    expect(all(prepareFacts(base))).toBe(false)
    expect(any(prepareFacts(base))).toBe(true)
    expect(all(prepareFacts({ ...base, amountCents: -20000 }))).toBe(true)
    expect(any(prepareFacts({ ...base, payeeName: 'Shop', amountCents: -5 }))).toBe(false)
  })
})

describe('condition validation', () => {
  function problems(condition: unknown): { path: string; message: string }[] {
    const parsed = PredicateSchema.safeParse({ combinator: 'all', conditions: [condition] })
    if (parsed.success) return []
    return parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }))
  }

  it('names an unknown field, an operator the field does not take, and a bad value by path', () => {
    expect(problems({ field: 'colour', op: 'is', value: 'red' })[0]?.path).toBe('conditions.0.field')
    expect(problems({ field: 'amount', op: 'contains', value: 5 })).toEqual([
      {
        path: 'conditions.0.op',
        message: 'Field amount takes these operators: is, gt, gte, lt, lte, between, approx.',
      },
    ])
    expect(problems({ field: 'amount', op: 'is', value: 1.5 })[0]?.path).toBe('conditions.0.value')
    expect(problems({ field: 'amount', op: 'between', value: 5 })[0]?.path).toBe('conditions.0.value')
    expect(problems({ field: 'date', op: 'before', value: '2020-08' })[0]?.path).toBe('conditions.0.value')
    expect(problems({ field: 'payee_id', op: 'is', value: 'nope' })[0]?.path).toBe('conditions.0.value')
    expect(problems({ field: 'memo', op: 'contains', value: '' })[0]?.path).toBe('conditions.0.value')
    expect(problems({ field: 'memo', op: 'oneOf', value: [] })[0]?.path).toBe('conditions.0.value')
    expect(problems({ field: 'memo', op: 'is' })[0]?.path).toBe('conditions.0.value')
    expect(problems({ field: 'memo', op: 'is', value: 'x', extra: 1 })[0]?.path).toBe('conditions.0')
  })

  it('refuses a pattern RE2 cannot run in linear time, such as a backreference or lookahead', () => {
    expect(problems({ field: 'memo', op: 'matches', value: '(a)\\1' })[0]?.path).toBe('conditions.0.value')
    expect(problems({ field: 'memo', op: 'matches', value: 'foo(?=bar)' })[0]?.message).toMatch(/RE2/)
    expect(problems({ field: 'memo', op: 'matches', value: 'fo**' })).not.toEqual([])
    expect(problems({ field: 'memo', op: 'matches', value: '(a+)+$' })).toEqual([])
  })

  it('runs a pattern that backtracks catastrophically elsewhere in linear time', () => {
    const test = compileCondition(ConditionSchema.parse({ field: 'memo', op: 'matches', value: '^(a+)+$' }))
    const started = performance.now()
    expect(test(prepareFacts({ ...base, memo: `${'a'.repeat(5000)}!` }))).toBe(false)
    expect(performance.now() - started).toBeLessThan(1000)
  })
})
