import { describe, expect, it } from 'vitest'
import { errorMessage, formatCents, formatDate } from './format.ts'

describe('formatDate', () => {
  it('writes a date as the browser’s date field shows it in that locale', () => {
    expect(formatDate('2026-11-27', 'en-US')).toBe('11/27/2026')
    expect(formatDate('2026-11-27', 'de-DE')).toBe('27.11.2026')
    expect(formatDate('2026-01-05', 'en-GB')).toBe('05/01/2026')
  })

  it('keeps the calendar day whatever the device’s time zone', () => {
    expect(formatDate('2026-03-01', 'en-US')).toBe('03/01/2026')
  })
})

describe('formatCents', () => {
  it('formats cents without a float', () => {
    expect(formatCents('-123456789', 'USD')).toBe('−$1,234,567.89')
  })
})

describe('errorMessage', () => {
  it('names what is wrong with each field of invalid input', () => {
    const refusal = Object.assign(new Error('The request has invalid fields.'), {
      code: 'VALIDATION_FAILED',
      errors: [{ path: 'annualRatePercent', message: 'Must be a percentage such as "6.5".' }],
    })
    expect(errorMessage(refusal)).toBe(
      'The request has invalid fields. annualRatePercent: Must be a percentage such as "6.5".',
    )
    expect(errorMessage(new Error('Only an owner of this household can do this.'))).toBe(
      'Only an owner of this household can do this.',
    )
    expect(errorMessage('plain')).toBe('plain')
  })
})
