import type { Transaction } from 'kysely'
import type { Database } from '../database.ts'
import { conflict, EngineError, notFound } from '../errors.ts'
import { defineMutator, defineUserMutator } from '../mutator/define.ts'
import type { IdentityHooks } from './household-seeders.ts'
import { toApiKey, toHousehold, toUser } from './model.ts'
import {
  AddMemberArgsSchema,
  CreateApiKeyArgsSchema,
  CreateHouseholdArgsSchema,
  CreateUserArgsSchema,
  ReplacePreferencesArgsSchema,
  RevokeApiKeyArgsSchema,
  UpdateHouseholdArgsSchema,
  UpdateProfileArgsSchema,
} from './schema.ts'

/** Creates a user; an email, when given, is unique, compared case-insensitively. Used by the CLI and first start. */
export const createUser = defineUserMutator({
  audience: 'system',
  description: 'Creates a user.',
  scope: null,
  args: CreateUserArgsSchema,
  async run(tx, args, ctx) {
    if (args.email) {
      const taken = await tx
        .selectFrom('users')
        .select('id')
        .where((eb) => eb(eb.fn('lower', ['email']), '=', args.email!.toLowerCase()))
        .executeTakeFirst()
      if (taken) throw conflict('EMAIL_TAKEN', `A user with the email ${args.email} already exists.`)
    }
    const row = await tx
      .insertInto('users')
      .values({
        id: args.id,
        name: args.name,
        email: args.email ?? null,
        time_zone: args.timeZone ?? null,
        default_household_id: null,
        created_at: ctx.now,
        updated_at: ctx.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    return toUser(row)
  },
})

/**
 * Creates a household with the acting user as its owner, and makes it their default if they have
 * none; then the seeders other domains registered fill it, in the same transaction.
 */
export function defineCreateHousehold(hooks: IdentityHooks) {
  return defineMutator({
    audience: 'server',
    description:
      'Creates a household with the acting user as its owner, and makes it their default if they have none.',
    scope: 'write:households',
    args: CreateHouseholdArgsSchema,
    async run(tx, args, ctx) {
      if (args.id !== ctx.householdId) {
        throw new EngineError(400, 'HOUSEHOLD_MISMATCH', 'The household id must match the context household.')
      }
      const row = await tx
        .insertInto('households')
        .values({
          id: args.id,
          name: args.name,
          base_currency: args.baseCurrency,
          time_zone: args.timeZone,
          data_language: args.dataLanguage,
          created_at: ctx.now,
          updated_at: ctx.now,
        })
        .returningAll()
        .executeTakeFirstOrThrow()
      await tx
        .insertInto('memberships')
        .values({ household_id: args.id, user_id: ctx.userId, role: 'owner', created_at: ctx.now })
        .execute()
      await tx
        .updateTable('users')
        .set({ default_household_id: args.id })
        .where('id', '=', ctx.userId)
        .where('default_household_id', 'is', null)
        .execute()
      const household = toHousehold(row)
      for (const seeder of hooks.householdSeeders) await seeder.seed(tx, household, ctx)
      ctx.emit('household.created', { householdId: args.id })
      return household
    },
  })
}

/**
 * Renames or re-settles a household; owners only. The base currency is fixed once a transaction
 * exists: every amount, balance and budget figure is in it, and nothing converts them.
 */
export const updateHousehold = defineMutator({
  audience: 'device',
  description: 'Renames or re-settles a household.',
  scope: 'write:households',
  ownerOnly: true,
  args: UpdateHouseholdArgsSchema,
  async run(tx, args, ctx) {
    if (args.baseCurrency !== undefined) await assertCurrencyMayChange(tx, ctx.householdId, args.baseCurrency)
    const row = await tx
      .updateTable('households')
      .set({
        ...(args.name !== undefined && { name: args.name }),
        ...(args.baseCurrency !== undefined && { base_currency: args.baseCurrency }),
        ...(args.timeZone !== undefined && { time_zone: args.timeZone }),
        ...(args.dataLanguage !== undefined && { data_language: args.dataLanguage }),
        updated_at: ctx.now,
      })
      .where('id', '=', ctx.householdId)
      .returningAll()
      .executeTakeFirst()
    if (!row) throw notFound('Household', ctx.householdId)
    ctx.emit('household.updated', { householdId: ctx.householdId, changes: Object.keys(args) })
    return toHousehold(row)
  },
})

/** Refuses a new base currency once the household has a transaction (deleted ones count). */
async function assertCurrencyMayChange(tx: Transaction<Database>, householdId: string, currency: string) {
  const household = await tx
    .selectFrom('households')
    .select('base_currency')
    .where('id', '=', householdId)
    .executeTakeFirst()
  if (!household || household.base_currency === currency) return
  const used = await tx
    .selectFrom('transactions')
    .select('id')
    .where('household_id', '=', householdId)
    .limit(1)
    .executeTakeFirst()
  if (used) {
    throw conflict(
      'BASE_CURRENCY_LOCKED',
      `The base currency stays ${household.base_currency} once the household has transactions: every amount and budget figure is in it. ` +
        'Create a new household in the other currency, or keep this one and record foreign accounts in their own currency with an exchange rate.',
      { baseCurrency: household.base_currency },
    )
  }
}

/** Adds a user to the household, or changes their role; owners only. */
export const addMember = defineMutator({
  audience: 'server',
  description: 'Adds a user to the household, or changes their role.',
  scope: 'write:households',
  ownerOnly: true,
  args: AddMemberArgsSchema,
  async run(tx, args, ctx) {
    const user = await tx.selectFrom('users').select('id').where('id', '=', args.userId).executeTakeFirst()
    if (!user) throw notFound('User', args.userId)
    await tx
      .insertInto('memberships')
      .values({ household_id: ctx.householdId, user_id: args.userId, role: args.role, created_at: ctx.now })
      .onConflict((oc) => oc.columns(['household_id', 'user_id']).doUpdateSet({ role: args.role }))
      .execute()
    await tx
      .updateTable('users')
      .set({ default_household_id: ctx.householdId })
      .where('id', '=', args.userId)
      .where('default_household_id', 'is', null)
      .execute()
    return { householdId: ctx.householdId, userId: args.userId, role: args.role }
  },
})

/** Updates the caller's profile; a new default household must be one they belong to. */
export const updateProfile = defineUserMutator({
  audience: 'server',
  description: "Updates the caller's profile.",
  scope: 'write:profile',
  args: UpdateProfileArgsSchema,
  async run(tx, args, ctx) {
    if (args.defaultHouseholdId) {
      const member = await tx
        .selectFrom('memberships')
        .select('role')
        .where('user_id', '=', ctx.userId)
        .where('household_id', '=', args.defaultHouseholdId)
        .executeTakeFirst()
      if (!member) throw notFound('Household', args.defaultHouseholdId)
    }
    if (args.email) {
      const taken = await tx
        .selectFrom('users')
        .select('id')
        .where((eb) => eb(eb.fn('lower', ['email']), '=', args.email!.toLowerCase()))
        .where('id', '!=', ctx.userId)
        .executeTakeFirst()
      if (taken) throw conflict('EMAIL_TAKEN', `Another user already has the email ${args.email}.`)
    }
    // A new email is unverified until a link mailed to it is followed; a change of case is none.
    let emailChanged = false
    if (args.email !== undefined) {
      const before = await tx
        .selectFrom('users')
        .select('email')
        .where('id', '=', ctx.userId)
        .executeTakeFirst()
      emailChanged = before?.email?.toLowerCase() !== args.email?.toLowerCase()
    }
    const row = await tx
      .updateTable('users')
      .set({
        ...(args.name !== undefined && { name: args.name }),
        ...(args.email !== undefined && { email: args.email }),
        ...(emailChanged && { email_verified_at: null }),
        ...(args.timeZone !== undefined && { time_zone: args.timeZone }),
        ...(args.defaultHouseholdId !== undefined && { default_household_id: args.defaultHouseholdId }),
        updated_at: ctx.now,
      })
      .where('id', '=', ctx.userId)
      .returningAll()
      .executeTakeFirst()
    if (!row) throw notFound('User', ctx.userId)
    return toUser(row)
  },
})

/** Replaces the caller's preferences blob whole; it is bounded in size and always an object. */
export const replacePreferences = defineUserMutator({
  audience: 'server',
  description: "Replaces the caller's preferences blob whole.",
  scope: 'write:profile',
  args: ReplacePreferencesArgsSchema,
  async run(tx, args, ctx) {
    const row = await tx
      .updateTable('users')
      .set({ preferences: JSON.stringify(args.preferences), updated_at: ctx.now })
      .where('id', '=', ctx.userId)
      .returningAll()
      .executeTakeFirst()
    if (!row) throw notFound('User', ctx.userId)
    return toUser(row)
  },
})

/** Issues an API key whose scopes are a subset of the caller's; only its hash is stored. */
export const createApiKey = defineUserMutator({
  audience: 'server',
  description: "Issues an API key whose scopes are a subset of the caller's.",
  scope: 'write:profile',
  args: CreateApiKeyArgsSchema,
  async run(tx, args, ctx) {
    const excess = args.scopes.filter((s) => !ctx.scopes.includes(s))
    if (excess.length > 0) {
      throw new EngineError(
        403,
        'SCOPE_NOT_GRANTABLE',
        `You cannot grant scopes you do not hold: ${excess.join(', ')}.`,
        {
          extra: { scopes: excess },
        },
      )
    }
    const row = await tx
      .insertInto('api_keys')
      .values({
        id: args.id,
        user_id: ctx.userId,
        name: args.name,
        prefix: args.prefix,
        key_hash: args.keyHash,
        scopes: args.scopes,
        created_at: ctx.now,
        last_used_at: null,
        revoked_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    return toApiKey(row)
  },
})

/** Revokes one of the caller's keys; revoking twice is harmless, another user's key is 404. */
export const revokeApiKey = defineUserMutator({
  audience: 'server',
  description: "Revokes one of the caller's keys.",
  scope: 'write:profile',
  args: RevokeApiKeyArgsSchema,
  async run(tx, args, ctx) {
    const row = await tx
      .updateTable('api_keys')
      .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(ctx.now)) }))
      .where('id', '=', args.id)
      .where('user_id', '=', ctx.userId)
      .returningAll()
      .executeTakeFirst()
    if (!row) throw notFound('API key', args.id)
    return toApiKey(row)
  },
})
