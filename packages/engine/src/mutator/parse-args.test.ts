import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { CentsSchema } from '../shared/schema.ts'
import { parseArgs } from './parse-args.ts'

function fieldErrors(schema: z.ZodType, value: unknown) {
  try {
    parseArgs(schema, value)
  } catch (error) {
    return (error as { errors: { path: string; message: string }[] }).errors
  }
  throw new Error('expected a refusal')
}

describe('parseArgs field errors', () => {
  it('says what an amount accepts instead of "Invalid input"', () => {
    const [error] = fieldErrors(z.strictObject({ amountCents: CentsSchema }), { amountCents: -1.5 })
    expect(error).toMatchObject({ path: 'amountCents' })
    expect(error!.message).toContain('whole number of cents')
  })

  it('names each branch of a union without its own message', () => {
    const schema = z.strictObject({ force: z.union([z.boolean(), z.enum(['true', 'false'])]) })
    const [error] = fieldErrors(schema, { force: 'yes' })
    expect(error!.message).toMatch(/^Accepted: .*boolean.*; or .*"true"\|"false"/)
  })

  it('names every unknown field on its own', () => {
    expect(fieldErrors(z.strictObject({ a: z.string() }), { a: 'x', b: 1, c: 2 })).toEqual([
      { path: 'b', message: 'Unknown field.', code: 'unknown_field' },
      { path: 'c', message: 'Unknown field.', code: 'unknown_field' },
    ])
  })
})
