import { describe, expect, it } from 'vitest'
import { parseArgs } from '../mutator/parse-args.ts'
import { PREFERENCES_MAX_BYTES, PREFERENCES_MAX_DEPTH, ReplacePreferencesArgsSchema } from './schema.ts'

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {}
  for (let i = 1; i < depth; i++) value = { a: value }
  return value
}

function refusal(preferences: unknown): string {
  try {
    parseArgs(ReplacePreferencesArgsSchema, { preferences })
  } catch (error) {
    return (error as { errors: { message: string }[] }).errors[0]!.message
  }
  throw new Error('expected a refusal')
}

describe('ReplacePreferencesArgsSchema', () => {
  it(`takes objects nested up to ${PREFERENCES_MAX_DEPTH} levels`, () => {
    expect(
      parseArgs(ReplacePreferencesArgsSchema, { preferences: nested(PREFERENCES_MAX_DEPTH) }),
    ).toBeTruthy()
    expect(refusal(nested(PREFERENCES_MAX_DEPTH + 1))).toMatch(/at most 32 levels/)
  })

  it('refuses nesting too deep to serialize with a 400, not a stack overflow', () => {
    // Deep enough that JSON.stringify itself throws RangeError.
    expect(refusal(nested(200_000))).toMatch(/at most 32 levels/)
    expect(refusal({ list: JSON.parse(`${'['.repeat(50_000)}${']'.repeat(50_000)}`) })).toMatch(/levels/)
  })

  it('still refuses preferences over the size limit', () => {
    expect(refusal({ text: 'x'.repeat(PREFERENCES_MAX_BYTES) })).toMatch(/at most 16384 bytes/)
  })
})
