import { z } from 'zod'
import { SCOPES } from '../scopes.ts'
import { CurrencySchema, LanguageSchema, NameSchema, TimeZoneSchema, UlidSchema } from '../shared/schema.ts'

export const CreateUserArgsSchema = z.strictObject({
  id: UlidSchema,
  name: NameSchema,
  email: z.email().max(320).nullish(),
  timeZone: TimeZoneSchema.nullish(),
})
export type CreateUserArgs = z.output<typeof CreateUserArgsSchema>

export const CreateHouseholdArgsSchema = z.strictObject({
  id: UlidSchema,
  name: NameSchema,
  baseCurrency: CurrencySchema.default('USD'),
  timeZone: TimeZoneSchema.default('UTC'),
  dataLanguage: LanguageSchema.default('en'),
})
export type CreateHouseholdArgs = z.output<typeof CreateHouseholdArgsSchema>

export const UpdateHouseholdArgsSchema = z.strictObject({
  name: NameSchema.optional(),
  baseCurrency: CurrencySchema.optional(),
  timeZone: TimeZoneSchema.optional(),
  dataLanguage: LanguageSchema.optional(),
})
export type UpdateHouseholdArgs = z.output<typeof UpdateHouseholdArgsSchema>

export const AddMemberArgsSchema = z.strictObject({
  userId: UlidSchema,
  role: z.enum(['owner', 'member']),
})
export type AddMemberArgs = z.output<typeof AddMemberArgsSchema>

export const UpdateProfileArgsSchema = z.strictObject({
  name: NameSchema.optional(),
  email: z.email().max(320).nullable().optional(),
  timeZone: TimeZoneSchema.nullable().optional(),
  defaultHouseholdId: UlidSchema.optional(),
})
export type UpdateProfileArgs = z.output<typeof UpdateProfileArgsSchema>

/** Preferences are the app's own JSON object; 16 KiB serialized is plenty for settings. */
export const PREFERENCES_MAX_BYTES = 16 * 1024
/** And 32 levels of nesting: deeper could overflow the stack of JSON.stringify, or PostgreSQL's. */
export const PREFERENCES_MAX_DEPTH = 32

export const ReplacePreferencesArgsSchema = z.strictObject({
  preferences: z.record(z.string(), z.unknown()).superRefine((p, ctx) => {
    // Depth first, without recursion: only then is serializing safe.
    if (depthOf(p) > PREFERENCES_MAX_DEPTH) {
      ctx.addIssue({
        code: 'custom',
        message: `Preferences may nest at most ${PREFERENCES_MAX_DEPTH} levels deep.`,
      })
    } else if (new TextEncoder().encode(JSON.stringify(p)).length > PREFERENCES_MAX_BYTES) {
      ctx.addIssue({
        code: 'custom',
        message: `Preferences must serialize to at most ${PREFERENCES_MAX_BYTES} bytes.`,
      })
    }
  }),
})
export type ReplacePreferencesArgs = z.output<typeof ReplacePreferencesArgsSchema>

export const ScopeListSchema = z
  .array(z.enum(SCOPES))
  .min(1, 'A key needs at least one scope.')
  .refine((s) => new Set(s).size === s.length, 'Scopes must not repeat.')

export const CreateApiKeyArgsSchema = z.strictObject({
  id: UlidSchema,
  name: NameSchema,
  scopes: ScopeListSchema,
  /** SHA-256 of the secret, hex; the secret itself never reaches the engine. */
  keyHash: z.string().regex(/^[0-9a-f]{64}$/),
  prefix: z.string().min(4).max(16),
})
export type CreateApiKeyArgs = z.output<typeof CreateApiKeyArgsSchema>

export const RevokeApiKeyArgsSchema = z.strictObject({ id: z.string().min(1) })

/** How deeply objects and arrays nest in a JSON value (a scalar is 0), walked without recursion. */
function depthOf(value: unknown): number {
  let deepest = 0
  const stack: [unknown, number][] = [[value, 0]]
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!
    if (v === null || typeof v !== 'object') continue
    deepest = Math.max(deepest, depth + 1)
    if (deepest > PREFERENCES_MAX_DEPTH) return deepest
    for (const item of Object.values(v)) stack.push([item, depth + 1])
  }
  return deepest
}
