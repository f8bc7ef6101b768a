import { NOTIFICATION_CHANNELS, NOTIFICATION_KINDS } from '@hearth/engine'
import { describe, expect, it } from 'vitest'
import { CHANNEL_WORDS, KIND_WORDS, subjectPath } from './kind-words.ts'

describe('notification words', () => {
  it('has words for every kind and channel the engine has', () => {
    expect(Object.keys(KIND_WORDS).sort()).toEqual(Object.keys(NOTIFICATION_KINDS).sort())
    expect(Object.keys(CHANNEL_WORDS).sort()).toEqual([...NOTIFICATION_CHANNELS].sort())
  })

  it('links a subject to the screen that shows it, and nothing for one without a screen', () => {
    expect(subjectPath({ type: 'transaction', transactionId: 't', accountId: 'a' })).toBe('/accounts/a')
    expect(subjectPath({ type: 'budgetCategory', categoryId: 'c', month: '2026-11' })).toBe('/budget/2026-11')
    expect(subjectPath({ type: 'recurrence', recurrenceId: 'r' })).toBe('/bills')
    expect(subjectPath({ type: 'signIn', userId: 'u' })).toBe('/devices')
    expect(subjectPath({ type: 'change', operation: 'transactions.update' })).toBeNull()
  })
})
