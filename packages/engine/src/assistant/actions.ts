import { sql } from 'kysely'
import { z } from 'zod'
import { relabelActivity } from '../changes/activity.ts'
import { conflict, EngineError, notFound } from '../errors.ts'
import type { HouseholdContext } from '../mutator/context.ts'
import { defineMutator, defineQuery, type Mutator } from '../mutator/define.ts'
import { parseArgs } from '../mutator/parse-args.ts'
import { authorize } from '../mutator/run.ts'
import { decodeInstantCursor, encodeInstantCursor, pageOf } from '../shared/cursor.ts'
import { newUlid } from '../shared/ulid.ts'
import { previewAction } from './preview.ts'
import { IdArgsSchema, ListActionsArgsSchema } from './schema.ts'
import type { ActionRow, ActionStatus } from './tables.ts'
import { mayUseTool, type OperationLookup } from './tools.ts'

/** Arguments that name new rows; a proposal fills them as a route does. */
const CLIENT_IDS = ['id', 'historyId'] as const

/** How long a proposed action waits for confirmation before it expires. */
export const ACTION_TTL_MS = 60 * 60 * 1000

/** An action as the API shows it. */
export interface AiAction {
  id: string
  conversationId: string | null
  operation: string
  args: Record<string, unknown>
  summary: string
  preview: unknown
  status: ActionStatus
  result: unknown
  createdBy: string
  createdAt: string
  expiresAt: string
  resolvedAt: string | null
  resolvedBy: string | null
}

function statusAt(row: ActionRow, now: Date): ActionStatus {
  return row.status === 'pending' && new Date(row.expires_at) <= now ? 'expired' : row.status
}

export function toAction(row: ActionRow, now: Date): AiAction {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    operation: row.operation,
    args: row.args,
    summary: row.summary,
    preview: row.preview,
    status: statusAt(row, now),
    result: row.result ?? null,
    createdBy: row.created_by,
    createdAt: new Date(row.created_at).toISOString(),
    expiresAt: new Date(row.expires_at).toISOString(),
    resolvedAt: row.resolved_at ? new Date(row.resolved_at).toISOString() : null,
    resolvedBy: row.resolved_by,
  }
}

const ProposeArgsSchema = z.strictObject({
  id: z.string().min(1).max(64),
  operation: z.string().min(1).max(100),
  args: z.record(z.string(), z.unknown()),
  summary: z.string().min(1).max(500),
  conversationId: z.string().max(64).nullable(),
})

/**
 * Proposes a write: checks that the member may run it and that its arguments pass the
 * operation's own schema (a 400 with field errors otherwise, which goes back to the model), and
 * stores it pending with a preview of what it would change. Nothing else changes.
 */
export function defineProposeAction(lookup: OperationLookup) {
  return defineMutator({
    audience: 'server',
    description: 'Stores a write the assistant proposes, with its preview, for the member to confirm.',
    scope: null,
    args: ProposeArgsSchema,
    async run(tx, input, ctx) {
      const op = lookup().get(input.operation)
      if (op?.kind !== 'mutator' || !mayUseTool(op, ctx)) {
        throw new EngineError(400, 'UNKNOWN_TOOL', `${input.operation} is not a tool you may use.`)
      }
      const args = { ...input.args }
      // The ids a route would fill for a caller (a create's id, a budget change's history id).
      const shape = (op.args as { shape?: object }).shape ?? {}
      for (const key of CLIENT_IDS) if (key in shape && args[key] === undefined) args[key] = newUlid()
      parseArgs(op.args, args)
      const preview = await previewAction(tx, op.name, args, ctx)
      const row = await tx
        .insertInto('ai_actions')
        .values({
          household_id: ctx.householdId,
          id: input.id,
          conversation_id: input.conversationId,
          created_by: ctx.userId,
          operation: op.name,
          args: JSON.stringify(args),
          summary: input.summary,
          preview: JSON.stringify(preview),
          expires_at: new Date(ctx.now.getTime() + ACTION_TTL_MS),
          created_at: ctx.now,
        })
        .returningAll()
        .executeTakeFirstOrThrow()
      return toAction(row, ctx.now)
    },
  })
}

/** The caller's actions awaiting confirmation, oldest first. */
export const listActions = defineQuery({
  audience: 'server',
  description: 'Your actions awaiting confirmation, oldest first; expired ones are left out.',
  scope: 'ai:chat',
  args: ListActionsArgsSchema,
  async run(db, args, ctx) {
    let query = db
      .selectFrom('ai_actions')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .where('created_by', '=', ctx.userId)
      .where('status', '=', 'pending')
      .where('expires_at', '>', ctx.now)
    if (args.cursor) {
      const after = decodeInstantCursor(args.cursor)
      query = query.where(sql<boolean>`(created_at, id) > (${after.at}::timestamptz, ${after.id})`)
    }
    const rows = await query
      .orderBy('created_at')
      .orderBy('id')
      .limit(args.limit + 1)
      .execute()
    const { page, nextCursor } = pageOf(rows, args.limit, (last) =>
      encodeInstantCursor({ at: new Date(last.created_at).toISOString(), id: last.id }),
    )
    return { items: page.map((r) => toAction(r, ctx.now)), nextCursor }
  },
})

/** The caller's own action, locked; another member's answers 404 like an unknown id. */
async function lockPendingAction(
  tx: Parameters<Mutator['run']>[0],
  ctx: HouseholdContext,
  id: string,
): Promise<ActionRow> {
  const row = await tx
    .selectFrom('ai_actions')
    .selectAll()
    .where('household_id', '=', ctx.householdId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst()
  if (!row || row.created_by !== ctx.userId) throw notFound('Action', id)
  const status = statusAt(row, ctx.now)
  if (status === 'expired') {
    throw conflict(
      'ACTION_EXPIRED',
      `Action ${id} expired at ${new Date(row.expires_at).toISOString()}; ask again.`,
    )
  }
  if (status !== 'pending') {
    throw conflict('ACTION_NOT_PENDING', `Action ${id} is already ${status}.`, { actionStatus: status })
  }
  return row
}

/**
 * Confirms an action and runs it once, through the same mutation REST runs, with the confirming
 * member's scopes and role as they are now, in this one transaction. Two confirms racing meet on
 * the action's row lock: one runs it, the other answers 409 ACTION_NOT_PENDING.
 */
export function defineConfirmAction(lookup: OperationLookup) {
  return defineMutator({
    audience: 'server',
    description: 'Confirms an action the assistant proposed and runs it once, with your permissions.',
    scope: 'ai:chat',
    args: IdArgsSchema,
    async run(tx, args, ctx) {
      const row = await lockPendingAction(tx, ctx, args.id)
      const op = lookup().get(row.operation)
      if (op?.kind !== 'mutator') throw conflict('ACTION_NOT_RUNNABLE', `${row.operation} no longer exists.`)
      authorize(op, ctx)
      const result = await op.run(tx, parseArgs(op.args, row.args), ctx)
      // Its activity entry names the operation the assistant proposed, done by the assistant for
      // the member who confirmed it.
      await relabelActivity(tx, ctx.householdId, op, { ...ctx, via: { kind: 'assistant', actionId: row.id } })
      const done = await tx
        .updateTable('ai_actions')
        .set({
          status: 'executed',
          result: JSON.stringify(result ?? null),
          resolved_at: ctx.now,
          resolved_by: ctx.userId,
        })
        .where('household_id', '=', ctx.householdId)
        .where('id', '=', row.id)
        .returningAll()
        .executeTakeFirstOrThrow()
      return toAction(done, ctx.now)
    },
  })
}

/** Cancels a pending action; nothing it proposed changes. */
export const cancelAction = defineMutator({
  audience: 'server',
  description: 'Cancels an action the assistant proposed; nothing it proposed changes.',
  scope: 'ai:chat',
  args: IdArgsSchema,
  async run(tx, args, ctx) {
    const row = await lockPendingAction(tx, ctx, args.id)
    const done = await tx
      .updateTable('ai_actions')
      .set({ status: 'cancelled', resolved_at: ctx.now, resolved_by: ctx.userId })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    return toAction(done, ctx.now)
  },
})
