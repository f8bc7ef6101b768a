import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../database.ts'
import { EngineError } from '../errors.ts'
import { defineMutator, defineQuery } from '../mutator/define.ts'
import { NoArgsSchema } from './schema.ts'

/** The one consent purpose the assistant needs (docs/api/assistant.md, Consent). */
export const AI_PROCESSING = 'ai_processing'

/** A member's consent as the API shows it. */
export interface Consent {
  purpose: typeof AI_PROCESSING
  granted: boolean
  grantedAt: string | null
}

type Db = Kysely<Database> | Transaction<Database>

/** Whether the member has granted `ai_processing` in the household. */
export async function hasAiConsent(db: Db, householdId: string, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('ai_consents')
    .select('granted_at')
    .where('household_id', '=', householdId)
    .where('user_id', '=', userId)
    .where('purpose', '=', AI_PROCESSING)
    .executeTakeFirst()
  return row !== undefined
}

/** 403 AI_CONSENT_REQUIRED unless the member has granted `ai_processing`. */
export async function requireAiConsent(db: Db, householdId: string, userId: string): Promise<void> {
  if (await hasAiConsent(db, householdId, userId)) return
  throw new EngineError(
    403,
    'AI_CONSENT_REQUIRED',
    'Grant the ai_processing consent first: POST /households/{householdId}/ai/consent.',
  )
}

async function readConsent(db: Db, householdId: string, userId: string): Promise<Consent> {
  const row = await db
    .selectFrom('ai_consents')
    .select('granted_at')
    .where('household_id', '=', householdId)
    .where('user_id', '=', userId)
    .where('purpose', '=', AI_PROCESSING)
    .executeTakeFirst()
  return {
    purpose: AI_PROCESSING,
    granted: !!row,
    grantedAt: row ? new Date(row.granted_at).toISOString() : null,
  }
}

/** The caller's own `ai_processing` consent in this household. */
export const getAiConsent = defineQuery({
  audience: 'server',
  description: 'Your ai_processing consent in this household: whether it is granted, and since when.',
  scope: 'ai:chat',
  args: NoArgsSchema,
  run: (db, _args, ctx) => readConsent(db, ctx.householdId, ctx.userId),
})

/** Grants the caller's `ai_processing` consent; granting again keeps the first date. */
export const grantAiConsent = defineMutator({
  audience: 'server',
  description:
    'Grants your ai_processing consent, which the assistant needs; granting twice changes nothing.',
  scope: 'ai:chat',
  args: NoArgsSchema,
  async run(tx, _args, ctx) {
    await tx
      .insertInto('ai_consents')
      .values({
        household_id: ctx.householdId,
        user_id: ctx.userId,
        purpose: AI_PROCESSING,
        granted_at: ctx.now,
      })
      .onConflict((oc) => oc.doNothing())
      .execute()
    return readConsent(tx, ctx.householdId, ctx.userId)
  },
})

/** Withdraws the caller's `ai_processing` consent; chat refuses from the next request on. */
export const withdrawAiConsent = defineMutator({
  audience: 'server',
  description: 'Withdraws your ai_processing consent; chat answers 403 AI_CONSENT_REQUIRED from then on.',
  scope: 'ai:chat',
  args: NoArgsSchema,
  async run(tx, _args, ctx) {
    await tx
      .deleteFrom('ai_consents')
      .where('household_id', '=', ctx.householdId)
      .where('user_id', '=', ctx.userId)
      .where('purpose', '=', AI_PROCESSING)
      .execute()
    return readConsent(tx, ctx.householdId, ctx.userId)
  },
})
