import { describe, expect, it } from 'vitest'
import { monthPeriod, parsePeriod } from './dates.ts'
import { intentOf } from './intents.ts'
import { formatCents, parseAmountCents } from './money.ts'
import { findNamed } from './names.ts'

const today = '2026-11-25'

describe('offline periods', () => {
  it('reads relative dates against the local day', () => {
    expect(parsePeriod('last month', today)).toMatchObject({ fromDate: '2026-10-01', toDate: '2026-10-31' })
    expect(parsePeriod('so far this month', today)).toMatchObject({
      fromDate: '2026-11-01',
      toDate: '2026-11-30',
    })
    expect(parsePeriod('this year', today)).toMatchObject({ fromDate: '2026-01-01', toDate: today })
    expect(parsePeriod('since March', today)).toMatchObject({ fromDate: '2026-03-01', toDate: today })
    expect(parsePeriod('since December', today)).toMatchObject({ fromDate: '2025-12-01', toDate: today })
    expect(parsePeriod('in feb', today)).toMatchObject({ fromDate: '2026-02-01', toDate: '2026-02-28' })
    expect(parsePeriod('March 2024', today)).toMatchObject({ fromDate: '2024-03-01', toDate: '2024-03-31' })
    expect(parsePeriod('the last 30 days', today)).toMatchObject({ fromDate: '2026-10-27', toDate: today })
    expect(parsePeriod('yesterday', today)).toMatchObject({ fromDate: '2026-11-24', toDate: '2026-11-24' })
    expect(parsePeriod('last year', today)).toMatchObject({ fromDate: '2025-01-01', toDate: '2025-12-31' })
    expect(parsePeriod('at the market', today)).toBeNull()
    expect(monthPeriod('2026-01-15', -1)).toMatchObject({ month: '2025-12', fromDate: '2025-12-01' })
  })
})

describe('offline intents', () => {
  it('recognizes everyday phrasing and synonyms', () => {
    expect(intentOf('How much did we blow on takeout?')).toBe('spending')
    expect(intentOf('what did I pay Netflix')).toBe('spending')
    expect(intentOf('show me my account balances')).toBe('balances')
    expect(intentOf("what's our net worth")).toBe('netWorth')
    expect(intentOf('how much is left for groceries')).toBe('budget')
    expect(intentOf('top 10 expenses this year')).toBe('largest')
    expect(intentOf('what changed since last month')).toBe('changes')
    expect(intentOf('move 50 from Dining Out to Groceries')).toBe('move')
    expect(intentOf('recategorize all Uber rides as Transport')).toBe('categorize')
    expect(intentOf('make a rule for Spotify as Subscriptions')).toBe('createRule')
    expect(intentOf('what bills are coming up')).toBe('upcoming')
    expect(intentOf('tell me a joke')).toBe('unknown')
  })
})

describe('offline names and money', () => {
  const items = [
    { id: '1', name: 'Groceries' },
    { id: '2', name: 'Dining Out' },
    { id: '3', name: 'Netflix' },
  ]
  it('finds names with typos through the payee name vectors', () => {
    expect(findNamed('spent on grocries?', items)?.item.id).toBe('1')
    expect(findNamed('how much at dinning out', items)?.item.id).toBe('2')
    expect(findNamed('netflx last month', items)?.item.id).toBe('3')
    expect(findNamed('rent last month', items)).toBeNull()
  })
  it('formats and reads cents exactly', () => {
    expect(formatCents('-123456789', 'USD')).toBe('-$1,234,567.89')
    expect(formatCents(5n, 'EUR')).toBe('€0.05')
    expect(parseAmountCents('move $1,250.5 from A to B')).toBe(125050)
    expect(parseAmountCents('move 50 from A to B')).toBe(5000)
    expect(parseAmountCents('no amount here')).toBeNull()
  })
})
