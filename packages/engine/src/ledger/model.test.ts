import { describe, expect, it } from 'vitest'
import { decodeCursor, encodeCursor } from '../shared/cursor.ts'
import {
  addDays,
  balanceEffect,
  canConvert,
  daysBetween,
  eachDay,
  isOnBudget,
  localDate,
  reorderPositions,
} from './model.ts'

describe('balanceEffect', () => {
  const row = { amount_cents: -1250, status: 'pending' as const, deleted_at: null, merged_into_id: null }
  it('counts pending rows in the balance only, cleared and reconciled rows in both', () => {
    expect(balanceEffect(row)).toEqual({ total: -1250, cleared: 0 })
    expect(balanceEffect({ ...row, status: 'cleared' })).toEqual({ total: -1250, cleared: -1250 })
    expect(balanceEffect({ ...row, status: 'reconciled' })).toEqual({ total: -1250, cleared: -1250 })
  })
  it('counts nothing for deleted rows and bank rows folded into a twin', () => {
    expect(balanceEffect({ ...row, deleted_at: new Date() })).toEqual({ total: 0, cleared: 0 })
    expect(balanceEffect({ ...row, merged_into_id: 'X' })).toEqual({ total: 0, cleared: 0 })
  })
})

describe('account types', () => {
  it('puts cash and credit on budget and allows only same-side conversions', () => {
    expect([isOnBudget('cash'), isOnBudget('credit'), isOnBudget('loan'), isOnBudget('tracking')]).toEqual([
      true,
      true,
      false,
      false,
    ])
    expect(canConvert('cash', 'credit')).toBe(true)
    expect(canConvert('tracking', 'loan')).toBe(true)
    expect(canConvert('cash', 'loan')).toBe(false)
    expect(canConvert('tracking', 'credit')).toBe(false)
  })
})

describe('calendar days', () => {
  it('finds the local day of an instant in a time zone', () => {
    const instant = new Date('2024-03-01T03:00:00Z')
    expect(localDate(instant, 'UTC')).toBe('2024-03-01')
    expect(localDate(instant, 'America/Los_Angeles')).toBe('2024-02-29')
    expect(localDate(new Date('2024-12-31T11:30:00Z'), 'Pacific/Kiritimati')).toBe('2025-01-01')
  })
  it('adds days across month and leap-year ends and counts days between', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29')
    expect(addDays('2024-03-01', -1)).toBe('2024-02-29')
    expect(addDays('2023-12-31', 1)).toBe('2024-01-01')
    expect(daysBetween('2024-01-01', '2024-12-31')).toBe(365)
    expect(daysBetween('2024-03-10', '2024-03-03')).toBe(-7)
    expect(eachDay('2024-02-28', '2024-03-01')).toEqual(['2024-02-28', '2024-02-29', '2024-03-01'])
  })
})

describe('reorderPositions', () => {
  it('puts listed accounts first in their group, in order, then the rest as they were', () => {
    const accounts = [
      { id: 'a', group: 'Cash', position: 0 },
      { id: 'b', group: 'Cash', position: 1 },
      { id: 'c', group: 'Cash', position: 2 },
      { id: 'x', group: 'Credit', position: 0 },
      { id: 'y', group: 'Credit', position: 1 },
    ]
    const positions = reorderPositions(accounts, ['c', 'y', 'a'])
    expect(Object.fromEntries(positions)).toEqual({ c: 0, a: 1, b: 2, y: 0, x: 1 })
  })
})

describe('cursors', () => {
  it('round-trips a sort key through an opaque base64url string', () => {
    const cursor = encodeCursor({ date: '2024-03-10', id: '01HZZZZZZZZZZZZZZZZZZZZZZZ' })
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/)
    expect(decodeCursor(cursor)).toEqual({ date: '2024-03-10', id: '01HZZZZZZZZZZZZZZZZZZZZZZZ' })
  })
  it('refuses anything it did not issue with 400 INVALID_CURSOR', () => {
    for (const bad of [
      '',
      'abc',
      btoa('v2|2024-01-01|X'),
      btoa('v1|2024-13-45|X'),
      btoa('v1|2024-02-30|X'),
      btoa('v1|2024-01-01|a b'),
    ]) {
      expect(() => decodeCursor(bad)).toThrowError(
        expect.objectContaining({ status: 400, code: 'INVALID_CURSOR' }),
      )
    }
  })
})
