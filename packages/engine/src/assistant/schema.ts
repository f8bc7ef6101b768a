import { z } from 'zod'
import { QueryBooleanSchema, queryLimitSchema, RefIdSchema } from '../ledger/schema.ts'
import { DateSchema } from '../shared/schema.ts'

/** Longest page of a conversation, action or insight list. */
export const AI_LIST_MAX = 100
/** Longest chat message a member may send, in characters. */
export const MAX_MESSAGE_CHARS = 4000
/** Longest conversation title. */
export const MAX_TITLE_CHARS = 200

export const NoArgsSchema = z.strictObject({})

export const ListConversationsArgsSchema = z.strictObject({
  limit: queryLimitSchema(AI_LIST_MAX).default(20),
  cursor: z.string().max(500).optional(),
  /** Title search, ignoring case. */
  q: z.string().max(MAX_TITLE_CHARS).optional(),
})

export const IdArgsSchema = z.strictObject({ id: RefIdSchema })

export const RenameConversationArgsSchema = z.strictObject({
  id: RefIdSchema,
  title: z
    .string()
    .trim()
    .min(1, 'Must not be empty.')
    .max(MAX_TITLE_CHARS, `At most ${MAX_TITLE_CHARS} characters.`),
})

export const BulkDeleteConversationsArgsSchema = z
  .strictObject({
    ids: z.array(RefIdSchema).min(1).max(AI_LIST_MAX, `At most ${AI_LIST_MAX} ids.`).optional(),
    all: z.literal(true, { error: 'Must be true.' }).optional(),
  })
  .refine((a) => (a.ids === undefined) !== (a.all === undefined), {
    message: 'Give either ids or all: true.',
  })

export const ListActionsArgsSchema = z.strictObject({
  limit: queryLimitSchema(AI_LIST_MAX).default(20),
  cursor: z.string().max(500).optional(),
})

export const ChatBodySchema = z.strictObject({
  /** Continue this conversation; a new one starts without it. */
  conversationId: RefIdSchema.optional(),
  message: z
    .string()
    .trim()
    .min(1, 'Must not be empty.')
    .max(MAX_MESSAGE_CHARS, `At most ${MAX_MESSAGE_CHARS} characters.`),
})
export type ChatBody = z.output<typeof ChatBodySchema>

export const ListInsightsArgsSchema = z.strictObject({
  includeDismissed: QueryBooleanSchema.optional(),
  kind: z.string().max(64).optional(),
  periodStart: DateSchema.optional(),
  limit: queryLimitSchema(AI_LIST_MAX).default(20),
  cursor: z.string().max(500).optional(),
})
