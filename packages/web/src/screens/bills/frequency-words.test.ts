import { describe, expect, it } from 'vitest'
import { frequencyWords, ordinal } from './frequency-words.ts'

const none = { dayOfMonth: null, weekday: null, weekOfMonth: null }

describe('frequencyWords', () => {
  it('says a monthly bill with its day', () => {
    expect(frequencyWords({ ...none, frequency: 'monthly', dayOfMonth: 12 })).toBe('monthly on the 12th')
    expect(frequencyWords({ ...none, frequency: 'monthly', interval: 3, dayOfMonth: 1 })).toBe(
      'every 3 months on the 1st',
    )
  })

  it('says weekdays and month ends', () => {
    expect(frequencyWords({ ...none, frequency: 'biweekly', weekday: 'friday' })).toBe(
      'every two weeks on friday',
    )
    expect(frequencyWords({ ...none, frequency: 'monthly_last_day' })).toBe('monthly on the last day')
    expect(
      frequencyWords({ ...none, frequency: 'monthly_nth_weekday', weekday: 'monday', weekOfMonth: -1 }),
    ).toBe('monthly on the last monday')
  })
})

describe('ordinal', () => {
  it('writes English ordinals, teens included', () => {
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 31].map(ordinal)).toEqual([
      '1st',
      '2nd',
      '3rd',
      '4th',
      '11th',
      '12th',
      '13th',
      '21st',
      '22nd',
      '31st',
    ])
  })
})
