import { type Kysely, sql, type Transaction } from 'kysely'
import type { Database } from '../database.ts'
import { conflict, notFound } from '../errors.ts'
import type { HouseholdContext } from '../mutator/context.ts'
import { defineMutator, defineQuery } from '../mutator/define.ts'
import { decodeInstantCursor, encodeInstantCursor, pageOf } from '../shared/cursor.ts'
import {
  BulkDeleteConversationsArgsSchema,
  IdArgsSchema,
  ListConversationsArgsSchema,
  RenameConversationArgsSchema,
} from './schema.ts'
import type { ConversationRow, MessagePart, MessageRow } from './tables.ts'

type Db = Kysely<Database> | Transaction<Database>

/** A conversation as the API shows it. */
export interface Conversation {
  id: string
  title: string
  status: 'open' | 'stopped'
  createdBy: string
  createdAt: string
  updatedAt: string
}

/** One stored message. */
export interface ConversationMessage {
  id: string
  role: 'user' | 'assistant'
  content: string
  status: MessageRow['status']
  parts: MessagePart[]
  createdAt: string
}

export function toConversation(row: ConversationRow): Conversation {
  return {
    id: row.id,
    title: row.title,
    status: row.status,
    createdBy: row.created_by,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  }
}

function toMessage(row: MessageRow): ConversationMessage {
  return {
    id: row.id,
    role: row.role,
    content: row.content,
    status: row.status,
    parts: row.parts,
    createdAt: new Date(row.created_at).toISOString(),
  }
}

/**
 * The conversation, if the caller may see it: its creator and the household's owners. Anyone
 * else gets the same 404 as for an id that does not exist, so existence leaks nothing.
 */
export async function requireVisibleConversation(
  db: Db,
  ctx: HouseholdContext,
  id: string,
  lock = false,
): Promise<ConversationRow> {
  let query = db
    .selectFrom('ai_conversations')
    .selectAll()
    .where('household_id', '=', ctx.householdId)
    .where('id', '=', id)
  if (lock) query = query.forUpdate()
  const row = await query.executeTakeFirst()
  if (!row || (row.created_by !== ctx.userId && ctx.role !== 'owner')) throw notFound('Conversation', id)
  return row
}

/** Conversations the caller may see, most recently updated first, with an optional title search. */
export const listConversations = defineQuery({
  audience: 'server',
  description: 'Your conversations (every one, for owners), most recently updated first; q searches titles.',
  scope: 'ai:chat',
  args: ListConversationsArgsSchema,
  async run(db, args, ctx) {
    let query = db.selectFrom('ai_conversations').selectAll().where('household_id', '=', ctx.householdId)
    if (ctx.role !== 'owner') query = query.where('created_by', '=', ctx.userId)
    if (args.q?.trim()) {
      const like = `%${args.q.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
      query = query.where(sql<boolean>`title ilike ${like}`)
    }
    if (args.cursor) {
      const after = decodeInstantCursor(args.cursor)
      query = query.where(sql<boolean>`(updated_at, id) < (${after.at}::timestamptz, ${after.id})`)
    }
    const rows = await query
      .orderBy('updated_at', 'desc')
      .orderBy('id', 'desc')
      .limit(args.limit + 1)
      .execute()
    const { page, nextCursor } = pageOf(rows, args.limit, (last) =>
      encodeInstantCursor({ at: new Date(last.updated_at).toISOString(), id: last.id }),
    )
    return { items: page.map(toConversation), nextCursor }
  },
})

/** One conversation with its messages, oldest first. */
export const getConversation = defineQuery({
  audience: 'server',
  description: 'One conversation with its messages; its creator and household owners only.',
  scope: 'ai:chat',
  args: IdArgsSchema,
  async run(db, args, ctx) {
    const row = await requireVisibleConversation(db, ctx, args.id)
    const messages = await db
      .selectFrom('ai_messages')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .where('conversation_id', '=', row.id)
      .orderBy('id')
      .execute()
    return { ...toConversation(row), messages: messages.map(toMessage) }
  },
})

/** Renames a conversation. */
export const renameConversation = defineMutator({
  audience: 'server',
  description: 'Renames a conversation.',
  scope: 'ai:chat',
  args: RenameConversationArgsSchema,
  async run(tx, args, ctx) {
    await requireVisibleConversation(tx, ctx, args.id, true)
    const row = await tx
      .updateTable('ai_conversations')
      .set({ title: args.title, updated_at: ctx.now })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    return toConversation(row)
  },
})

/** Deletes a conversation and its messages; proposed actions stay, detached, until they expire. */
export const deleteConversation = defineMutator({
  audience: 'server',
  description: 'Deletes a conversation and its messages for good.',
  scope: 'ai:chat',
  args: IdArgsSchema,
  async run(tx, args, ctx) {
    await requireVisibleConversation(tx, ctx, args.id, true)
    await removeConversations(tx, ctx.householdId, [args.id])
  },
})

async function removeConversations(
  tx: Transaction<Database>,
  householdId: string,
  ids: string[],
): Promise<void> {
  if (ids.length === 0) return
  await tx
    .updateTable('ai_actions')
    .set({ conversation_id: null })
    .where('household_id', '=', householdId)
    .where('conversation_id', 'in', ids)
    .execute()
  await tx
    .deleteFrom('ai_conversations')
    .where('household_id', '=', householdId)
    .where('id', 'in', ids)
    .execute()
}

/** Deletes the caller's own conversations, by ids or all; ids of others' or unknown ones are skipped. */
export const bulkDeleteConversations = defineMutator({
  audience: 'server',
  description: "Deletes your own conversations, given as ids or all: true; others' ids are left alone.",
  scope: 'ai:chat',
  args: BulkDeleteConversationsArgsSchema,
  async run(tx, args, ctx) {
    let query = tx
      .selectFrom('ai_conversations')
      .select('id')
      .where('household_id', '=', ctx.householdId)
      .where('created_by', '=', ctx.userId)
    if (args.ids) query = query.where('id', 'in', args.ids)
    const ids = (await query.execute()).map((r) => r.id)
    await removeConversations(tx, ctx.householdId, ids)
    return { deletedCount: ids.length, deletedIds: ids }
  },
})

/** Stops a conversation: it keeps its messages and takes no further turns. */
export const stopConversation = defineMutator({
  audience: 'server',
  description: 'Stops a conversation: it keeps its messages and takes no further turns.',
  scope: 'ai:chat',
  args: IdArgsSchema,
  async run(tx, args, ctx) {
    await requireVisibleConversation(tx, ctx, args.id, true)
    const row = await tx
      .updateTable('ai_conversations')
      .set({ status: 'stopped', updated_at: ctx.now })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    return toConversation(row)
  },
})

/** 409 CONVERSATION_STOPPED for a stopped conversation. */
export function assertOpen(row: ConversationRow): void {
  if (row.status === 'stopped') {
    throw conflict('CONVERSATION_STOPPED', 'This conversation was stopped; start a new one.', {
      conversationId: row.id,
    })
  }
}
