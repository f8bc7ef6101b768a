import { describe, expect, it } from 'vitest'
import { intentClassifier } from './classifier.ts'
import { CORPUS } from './corpus.ts'
import { expandCorpus, MIN_PER_INTENT } from './corpus-expand.ts'
import { formatCents, parseAmountCents } from './money.ts'
import { type Named, NameIndex } from './names.ts'
import { findPeriods, monthPeriod } from './periods.ts'
import { understand } from './understand.ts'

const today = '2026-11-25'
const period = (text: string) => findPeriods(text, today).map((p) => [p.fromDate, p.toDate])

describe('offline periods', () => {
  it('reads everyday periods against the local day', () => {
    expect(period('last month')).toEqual([['2026-10-01', '2026-10-31']])
    expect(period('how much last mo')).toEqual([['2026-10-01', '2026-10-31']])
    expect(period("last month's spending")).toEqual([['2026-10-01', '2026-10-31']])
    expect(period('grocerys ytd')).toEqual([['2026-01-01', today]])
    expect(period('this year')).toEqual([['2026-01-01', today]])
    expect(period('since the 3rd')).toEqual([['2026-11-03', today]])
    expect(period('since the 28th')).toEqual([['2026-10-28', today]])
    expect(period('in October')).toEqual([['2026-10-01', '2026-10-31']])
    expect(period('in december')).toEqual([['2025-12-01', '2025-12-31']])
    expect(period('since March')).toEqual([['2026-03-01', today]])
    expect(period('March 2024')).toEqual([['2024-03-01', '2024-03-31']])
    expect(period('the last 30 days')).toEqual([['2026-10-27', today]])
    expect(period('last 3 months')).toEqual([['2026-08-01', '2026-10-31']])
    expect(period('last year')).toEqual([['2025-01-01', '2025-12-31']])
    expect(period('yesterday')).toEqual([['2026-11-24', '2026-11-24']])
    expect(period('since Nov 3')).toEqual([['2026-11-03', today]])
    expect(period('this month vs last month')).toEqual([
      ['2026-11-01', '2026-11-30'],
      ['2026-10-01', '2026-10-31'],
    ])
    expect(period('october vs september')).toEqual([
      ['2026-10-01', '2026-10-31'],
      ['2026-09-01', '2026-09-30'],
    ])
    expect(period('at the market')).toEqual([])
    expect(monthPeriod('2026-01-15', -1)).toMatchObject({ month: '2025-12', fromDate: '2025-12-01' })
  })
})

const items: Named[] = [
  ...['Groceries', 'Dining Out', 'Subscriptions', 'Salary'].map((name, i) => ({
    id: `c${i}`,
    name,
    spelling: name,
    kind: 'category' as const,
  })),
  ...['FreshMart', 'Netflix', 'Shell'].map((name, i) => ({
    id: `p${i}`,
    name,
    spelling: name,
    kind: 'payee' as const,
  })),
  { id: 'p0', name: 'FreshMart', spelling: 'FM Store 12', kind: 'payee' },
  { id: 'a0', name: 'Everyday Checking', spelling: 'Everyday Checking', kind: 'account' },
]
const index = new NameIndex(items)

describe('offline names', () => {
  const ids = (text: string) => index.find(text).map((m) => m.item.id)
  it('finds names with typos, partial names, everyday words and aliases, and nothing else', () => {
    expect(ids('spent on grocries')).toEqual(['c0'])
    expect(ids('how much at dining out')).toEqual(['c1'])
    expect(ids('netflx last month')).toEqual(['p1'])
    expect(ids('whats in checking')).toEqual(['a0'])
    expect(ids('how much did we blow on takeout')).toEqual(['c1'])
    expect(ids('paid at fm store 12')).toEqual(['p0'])
    expect(ids('tell me a joke')).toEqual([])
    expect(ids('rent last month')).toEqual([])
  })
})

describe('offline understanding', () => {
  const classifier = intentClassifier()
  const read = (text: string) => understand(text, today, index, classifier)

  it('reads the intent of casual questions, with their names and periods masked', () => {
    const cases: [string, string][] = [
      ['how much did we blow on takeout last mo', 'spending'],
      ['grocerys ytd', 'spending'],
      ['avg per month on food', 'average'],
      ["break down last month's spending by category", 'breakdown'],
      ['how much did we earn in October?', 'income'],
      ['which payee did we pay the most last month?', 'top'],
      ['what bills are coming up?', 'upcoming'],
      ['how does this month stack up against last month?', 'compare'],
      ['how many times did we eat out last month', 'count'],
      ['move $50 from dining out to groceries', 'move'],
      ['tell me a joke', 'outOfScope'],
      ['invite my wife to the household', 'outOfScope'],
    ]
    for (const [text, intent] of cases) expect(read(text).intent, text).toBe(intent)
    const move = read('move $1,250.50 from dining out to groceries')
    expect(move.amountCents).toBe(125050)
    expect(move.masked).toBe('move xamountx from xcategoryx to xcategoryx')
  })

  it('does not answer what it cannot read: an unread period, a name that is nobody', () => {
    expect(read('what did we spend in the summer').timeUnread).toBe(true)
    expect(read('how much did we spend on zebras last month').unknownWords).toEqual(['zebras'])
    expect(read('purple monkey dishwasher').intent).toBeNull()
  })
})

describe('offline corpus and money', () => {
  it('holds several hundred examples for every intent', () => {
    const counts = new Map<string, number>()
    for (const e of expandCorpus()) counts.set(e.intent, (counts.get(e.intent) ?? 0) + 1)
    for (const intent of Object.keys(CORPUS))
      expect(counts.get(intent), intent).toBeGreaterThanOrEqual(MIN_PER_INTENT)
  })

  it('formats and reads cents exactly', () => {
    expect(formatCents('-123456789', 'USD')).toBe('-$1,234,567.89')
    expect(formatCents(5n, 'EUR')).toBe('€0.05')
    expect(parseAmountCents('move $1,250.5 from A to B')).toBe(125050)
    expect(parseAmountCents('move 50 from A to B')).toBe(5000)
    expect(parseAmountCents('no amount here')).toBeNull()
  })
})
