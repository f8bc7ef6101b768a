import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { CentsSchema, DateSchema } from '../shared/schema.ts'
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
      { path: 'b', message: 'Unknown field "b".', code: 'unknown_field' },
      { path: 'c', message: 'Unknown field "c".', code: 'unknown_field' },
    ])
  })
})

describe('parseArgs text PostgreSQL cannot store', () => {
  const schema = z.strictObject({
    name: z.string(),
    tags: z.array(z.string()),
    meta: z.record(z.string(), z.unknown()),
  })
  const ok = { name: 'x', tags: [], meta: {} }

  it('refuses the NUL character in a value, an array item or a key, by path', () => {
    expect(fieldErrors(schema, { ...ok, name: 'a\u0000b' })).toEqual([
      { path: 'name', message: 'Must not contain the NUL character (U+0000).', code: 'invalid_text' },
    ])
    expect(fieldErrors(schema, { ...ok, tags: ['fine', '\u0000'] })[0]).toMatchObject({ path: 'tags.1' })
    expect(fieldErrors(schema, { ...ok, meta: { deep: { 'k\u0000': 1 } } })[0]).toMatchObject({
      path: 'meta.deep.k\u0000',
      code: 'invalid_text',
    })
  })

  it('refuses an unpaired surrogate and keeps a paired one', () => {
    expect(fieldErrors(schema, { ...ok, name: 'x\ud800' })[0]).toMatchObject({
      path: 'name',
      code: 'invalid_text',
    })
    expect(fieldErrors(schema, { ...ok, name: '\udc00x' })[0]).toMatchObject({
      path: 'name',
      code: 'invalid_text',
    })
    expect(parseArgs(schema, { ...ok, name: '🏠 \ud83c\udfe0' }).name).toBe('🏠 🏠')
  })

  it('walks any depth without overflowing the stack', () => {
    let deep: unknown = 'a\u0000'
    for (let i = 0; i < 100_000; i++) deep = { a: deep }
    expect(fieldErrors(schema, { ...ok, meta: { deep } })[0]).toMatchObject({ code: 'invalid_text' })
  })
})

describe('DateSchema', () => {
  it('takes days from 1900 to 2999 only, so date arithmetic stays within four-digit years', () => {
    const schema = z.strictObject({ date: DateSchema })
    for (const date of ['1900-01-01', '2024-02-29', '2999-12-31']) {
      expect(parseArgs(schema, { date }).date).toBe(date)
    }
    for (const date of ['0000-01-01', '0001-01-01', '1899-12-31', '3000-01-01', '9999-12-31']) {
      expect(fieldErrors(schema, { date })[0]!.message).toBe('Must be a day from 1900-01-01 to 2999-12-31.')
    }
  })
})
