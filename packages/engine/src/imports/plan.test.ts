import { describe, expect, it } from 'vitest'
import { statementOf } from './plan.ts'

const csv = 'Date,Amount,Payee\n2026-11-02,-12.50,Corner Shop\n2026-11-03,-3.20,Bakery\n'

describe('statementOf', () => {
  it('reads the file its preview just read once, and reads any other file, format or mapping afresh', () => {
    const first = statementOf({ format: 'csv', content: csv })
    expect(statementOf({ format: 'csv', content: `${csv}` })).toBe(first)
    const swapped = statementOf({
      format: 'csv',
      content: csv,
      mapping: { payee: 'Amount', amount: 'Payee' },
    })
    expect(swapped).not.toBe(first)
    expect(swapped.rows).toHaveLength(0)
    const longer = statementOf({ format: 'csv', content: `${csv}2026-11-04,-1.00,Kiosk\n` })
    expect(longer.rows.map((r) => r.payee)).toEqual(['Corner Shop', 'Bakery', 'Kiosk'])
    const again = statementOf({ format: 'csv', content: csv })
    expect(again).not.toBe(first)
    expect(again).toEqual(first)
  })
})
