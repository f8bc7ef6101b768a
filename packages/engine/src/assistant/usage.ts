import { type Kysely, sql } from 'kysely'
import type { Database } from '../database.ts'
import { EngineError } from '../errors.ts'
import type { HouseholdContext } from '../mutator/context.ts'

/** The assistant's caps; 0 means no cap (docs/api/assistant.md, Caps). */
export interface AiCaps {
  userDailyRequests: number
  userDailyTokens: number
  householdMonthlyRequests: number
  householdMonthlyTokens: number
}

/** What `GET H/ai/usage` reports. */
export interface AiUsage {
  day: string
  month: string
  user: {
    requests: number
    tokens: number
    requestCap: number | null
    tokenCap: number | null
    resetsAt: string
  }
  household: {
    requests: number
    tokens: number
    requestCap: number | null
    tokenCap: number | null
    resetsAt: string
  }
}

const dayOf = (now: Date) => now.toISOString().slice(0, 10)
const monthStartOf = (now: Date) => `${now.toISOString().slice(0, 7)}-01`

function nextDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1))
}

function nextMonth(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1))
}

/** The caller's usage today and the household's this month (UTC), against the caps. */
export async function readAiUsage(
  db: Kysely<Database>,
  ctx: HouseholdContext,
  caps: AiCaps,
): Promise<AiUsage> {
  const day = dayOf(ctx.now)
  const month = monthStartOf(ctx.now)
  const { rows } = await sql<{ ur: string; ut: string; hr: string; ht: string }>`
    select
      coalesce(sum(requests) filter (where user_id = ${ctx.userId} and day = ${day}::date), 0) as ur,
      coalesce(sum(tokens) filter (where user_id = ${ctx.userId} and day = ${day}::date), 0) as ut,
      coalesce(sum(requests), 0) as hr,
      coalesce(sum(tokens), 0) as ht
    from ai_usage
    where household_id = ${ctx.householdId} and day >= ${month}::date`.execute(db)
  const r = rows[0]!
  const cap = (n: number) => (n > 0 ? n : null)
  return {
    day,
    month: month.slice(0, 7),
    user: {
      requests: Number(r.ur),
      tokens: Number(r.ut),
      requestCap: cap(caps.userDailyRequests),
      tokenCap: cap(caps.userDailyTokens),
      resetsAt: nextDay(ctx.now).toISOString(),
    },
    household: {
      requests: Number(r.hr),
      tokens: Number(r.ht),
      requestCap: cap(caps.householdMonthlyRequests),
      tokenCap: cap(caps.householdMonthlyTokens),
      resetsAt: nextMonth(ctx.now).toISOString(),
    },
  }
}

/**
 * 429 AI_CAP_REACHED when the caller or the household has used up a cap; `retryAfter` is the
 * seconds until that cap resets (midnight UTC for a daily cap, the 1st for a monthly one).
 */
export async function assertUnderCaps(
  db: Kysely<Database>,
  ctx: HouseholdContext,
  caps: AiCaps,
): Promise<void> {
  const usage = await readAiUsage(db, ctx, caps)
  const over = (used: number, limit: number | null) => limit !== null && used >= limit
  const hit =
    over(usage.household.requests, usage.household.requestCap) ||
    over(usage.household.tokens, usage.household.tokenCap)
      ? { which: 'household monthly', resetsAt: usage.household.resetsAt }
      : over(usage.user.requests, usage.user.requestCap) || over(usage.user.tokens, usage.user.tokenCap)
        ? { which: 'daily', resetsAt: usage.user.resetsAt }
        : null
  if (!hit) return
  const retryAfter = Math.max(1, Math.ceil((Date.parse(hit.resetsAt) - ctx.now.getTime()) / 1000))
  throw new EngineError(
    429,
    'AI_CAP_REACHED',
    `The ${hit.which} assistant cap is reached; it resets at ${hit.resetsAt}.`,
    {
      extra: { retryAfter, resetsAt: hit.resetsAt, usage },
    },
  )
}

/** Adds requests and tokens to the caller's counter for today. */
export async function recordAiUsage(
  db: Kysely<Database>,
  ctx: HouseholdContext,
  used: { requests: number; tokens: number },
): Promise<void> {
  await db
    .insertInto('ai_usage')
    .values({
      household_id: ctx.householdId,
      user_id: ctx.userId,
      day: dayOf(ctx.now),
      requests: used.requests,
      tokens: used.tokens,
    })
    .onConflict((oc) =>
      oc.columns(['household_id', 'user_id', 'day']).doUpdateSet({
        requests: sql`ai_usage.requests + excluded.requests`,
        tokens: sql`ai_usage.tokens + excluded.tokens`,
      }),
    )
    .execute()
}
