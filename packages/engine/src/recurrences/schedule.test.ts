import { describe, expect, it } from 'vitest'
import { occurrenceOnOrAfter, occurrencesBetween, type Schedule } from './schedule.ts'

function schedule(s: Partial<Schedule> & Pick<Schedule, 'frequency' | 'startDate'>): Schedule {
  return { interval: 1, dayOfMonth: null, weekday: null, weekOfMonth: null, endDate: null, count: null, ...s }
}

describe('recurrence schedules', () => {
  it('puts the 31st on the last day of shorter months, leap February included', () => {
    const s = schedule({ frequency: 'monthly', dayOfMonth: 31, startDate: '2024-01-01' })
    expect(occurrencesBetween(s, '2024-01-01', '2024-06-30')).toEqual([
      '2024-01-31',
      '2024-02-29',
      '2024-03-31',
      '2024-04-30',
      '2024-05-31',
      '2024-06-30',
    ])
    expect(occurrencesBetween(s, '2025-02-01', '2025-03-01')).toEqual(['2025-02-28'])
  })

  it('keeps the 30th on the 30th, and on the last day of February', () => {
    const s = schedule({ frequency: 'monthly', dayOfMonth: 30, startDate: '2023-01-01' })
    expect(occurrencesBetween(s, '2023-01-01', '2023-03-31')).toEqual([
      '2023-01-30',
      '2023-02-28',
      '2023-03-30',
    ])
  })

  it('runs on the last day of every month', () => {
    const s = schedule({ frequency: 'monthly_last_day', startDate: '2023-11-15' })
    expect(occurrencesBetween(s, '2023-11-01', '2024-02-29')).toEqual([
      '2023-11-30',
      '2023-12-31',
      '2024-01-31',
      '2024-02-29',
    ])
  })

  it('makes February 30th yearly the last day of February, leap years too', () => {
    const s = schedule({ frequency: 'yearly', dayOfMonth: 30, startDate: '2023-02-01' })
    expect(occurrencesBetween(s, '2023-01-01', '2026-12-31')).toEqual([
      '2023-02-28',
      '2024-02-29',
      '2025-02-28',
      '2026-02-28',
    ])
  })

  it('books February 29th yearly on the 28th outside leap years', () => {
    const s = schedule({ frequency: 'yearly', startDate: '2024-02-29' })
    expect(occurrencesBetween(s, '2024-01-01', '2026-12-31')).toEqual([
      '2024-02-29',
      '2025-02-28',
      '2026-02-28',
    ])
  })

  it('finds the nth and the last weekday of a month', () => {
    const second = schedule({
      frequency: 'monthly_nth_weekday',
      weekday: 1,
      weekOfMonth: 2,
      startDate: '2025-01-01',
    })
    expect(occurrencesBetween(second, '2025-01-01', '2025-03-31')).toEqual([
      '2025-01-14',
      '2025-02-11',
      '2025-03-11',
    ])
    const last = schedule({
      frequency: 'monthly_nth_weekday',
      weekday: 4,
      weekOfMonth: -1,
      startDate: '2025-01-01',
    })
    expect(occurrencesBetween(last, '2025-01-01', '2025-03-31')).toEqual([
      '2025-01-31',
      '2025-02-28',
      '2025-03-28',
    ])
  })

  it('steps daily, weekly, every two weeks and every N units', () => {
    expect(
      occurrencesBetween(
        schedule({ frequency: 'daily', startDate: '2025-03-29' }),
        '2025-03-29',
        '2025-04-01',
      ),
    ).toEqual(['2025-03-29', '2025-03-30', '2025-03-31', '2025-04-01'])
    const fridays = schedule({ frequency: 'biweekly', startDate: '2025-01-03' })
    expect(occurrencesBetween(fridays, '2025-01-01', '2025-02-14')).toEqual([
      '2025-01-03',
      '2025-01-17',
      '2025-01-31',
      '2025-02-14',
    ])
    const quarterly = schedule({ frequency: 'monthly', interval: 3, startDate: '2025-01-15' })
    expect(occurrencesBetween(quarterly, '2025-01-01', '2025-12-31')).toEqual([
      '2025-01-15',
      '2025-04-15',
      '2025-07-15',
      '2025-10-15',
    ])
    const weekly = schedule({ frequency: 'weekly', weekday: 0, startDate: '2025-01-01' })
    expect(occurrenceOnOrAfter(weekly, '2025-01-01')).toBe('2025-01-06')
  })

  it('stops at its end date or after its count', () => {
    const byEnd = schedule({ frequency: 'monthly', startDate: '2025-01-10', endDate: '2025-03-10' })
    expect(occurrencesBetween(byEnd, '2025-01-01', '2025-12-31')).toEqual([
      '2025-01-10',
      '2025-02-10',
      '2025-03-10',
    ])
    expect(occurrenceOnOrAfter(byEnd, '2025-03-11')).toBeNull()
    const byCount = schedule({ frequency: 'weekly', startDate: '2025-01-01', count: 2 })
    expect(occurrencesBetween(byCount, '2025-01-01', '2025-12-31')).toEqual(['2025-01-01', '2025-01-08'])
  })

  it('keeps one occurrence per calendar day across daylight-saving changes', () => {
    // Calendar days carry no clock time, so the nights the clocks change neither drop nor repeat a day.
    const s = schedule({ frequency: 'daily', startDate: '2025-10-25' })
    expect(occurrencesBetween(s, '2025-10-25', '2025-10-27')).toEqual([
      '2025-10-25',
      '2025-10-26',
      '2025-10-27',
    ])
    const monthly = schedule({ frequency: 'monthly', dayOfMonth: 30, startDate: '2025-03-30' })
    expect(occurrencesBetween(monthly, '2025-03-01', '2025-04-30')).toEqual(['2025-03-30', '2025-04-30'])
  })
})
