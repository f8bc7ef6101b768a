import type { Kysely } from 'kysely'
import type { Database } from '../database.ts'
import type { HouseholdContext } from '../mutator/context.ts'
import { monotonicUlids } from '../shared/ulid.ts'
import { requireAiConsent } from './consent.ts'
import { assertOpen, type Conversation, requireVisibleConversation, toConversation } from './conversations.ts'
import type { ChatBody } from './schema.ts'
import type { MessagePart } from './tables.ts'
import { type AiCaps, assertUnderCaps, recordAiUsage } from './usage.ts'

const messageId = monotonicUlids()

/** A turn under way: its conversation, the earlier messages, and the assistant message it fills. */
export interface Turn {
  conversation: Conversation
  userMessageId: string
  assistantMessageId: string
  /** Earlier messages of the conversation, oldest first, for a provider's context. */
  history: { role: 'user' | 'assistant'; content: string }[]
}

/** How many earlier messages a provider sees. */
const HISTORY_LIMIT = 20

/**
 * Opens one chat turn in one transaction: checks consent, finds (or starts) the conversation,
 * stores the member's message and an empty assistant message marked `streaming`, which
 * `finishTurn` completes or marks interrupted, and counts the request against the caps. A turn
 * is never half-written: until it finishes, its assistant message says it is still streaming.
 * With `caps`, a member or household past one is refused (429 `AI_CAP_REACHED`) after consent
 * is checked and before anything is written.
 */
export async function startTurn(
  db: Kysely<Database>,
  ctx: HouseholdContext,
  body: ChatBody,
  newConversationId: string,
  caps?: AiCaps,
): Promise<Turn> {
  return db.transaction().execute(async (tx) => {
    await requireAiConsent(tx, ctx.householdId, ctx.userId)
    if (caps) await assertUnderCaps(tx, ctx, caps)
    let conversation = body.conversationId
      ? await requireVisibleConversation(tx, ctx, body.conversationId, true)
      : null
    if (conversation) assertOpen(conversation)
    if (!conversation) {
      conversation = await tx
        .insertInto('ai_conversations')
        .values({
          household_id: ctx.householdId,
          id: newConversationId,
          created_by: ctx.userId,
          title: titleOf(body.message),
          created_at: ctx.now,
          updated_at: ctx.now,
        })
        .returningAll()
        .executeTakeFirstOrThrow()
    } else {
      await tx
        .updateTable('ai_conversations')
        .set({ updated_at: ctx.now })
        .where('household_id', '=', ctx.householdId)
        .where('id', '=', conversation.id)
        .execute()
      conversation = { ...conversation, updated_at: ctx.now }
    }
    const earlier = await tx
      .selectFrom('ai_messages')
      .select(['role', 'content'])
      .where('household_id', '=', ctx.householdId)
      .where('conversation_id', '=', conversation.id)
      .where('status', '!=', 'streaming')
      .orderBy('id', 'desc')
      .limit(HISTORY_LIMIT)
      .execute()
    const userMessageId = messageId()
    const assistantMessageId = messageId()
    await tx
      .insertInto('ai_messages')
      .values([
        {
          household_id: ctx.householdId,
          id: userMessageId,
          conversation_id: conversation.id,
          role: 'user',
          content: body.message,
          status: 'complete',
          created_at: ctx.now,
        },
        {
          household_id: ctx.householdId,
          id: assistantMessageId,
          conversation_id: conversation.id,
          role: 'assistant',
          content: '',
          status: 'streaming',
          created_at: ctx.now,
        },
      ])
      .execute()
    await recordAiUsage(tx, ctx, { requests: 1, tokens: 0 })
    return {
      conversation: toConversation(conversation),
      userMessageId,
      assistantMessageId,
      history: earlier.reverse(),
    }
  })
}

/** How a turn ended. */
export interface TurnEnd {
  content: string
  parts: MessagePart[]
  status: 'complete' | 'interrupted' | 'failed'
  tokens: number
}

/**
 * Writes the assistant message of a turn once, as it ended, and counts its tokens against the
 * caps, in one transaction; a second call changes nothing.
 */
export async function finishTurn(
  db: Kysely<Database>,
  ctx: HouseholdContext,
  assistantMessageId: string,
  end: TurnEnd,
): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const result = await tx
      .updateTable('ai_messages')
      .set({ content: end.content, parts: JSON.stringify(end.parts), status: end.status, tokens: end.tokens })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', assistantMessageId)
      .where('status', '=', 'streaming')
      .executeTakeFirst()
    if (Number(result.numUpdatedRows) !== 1) return false
    if (end.tokens > 0) await recordAiUsage(tx, ctx, { requests: 0, tokens: end.tokens })
    return true
  })
}

function titleOf(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim()
  return line.length <= 60 ? line : `${line.slice(0, 59)}…`
}
