import type { ColumnType, Selectable } from 'kysely'

type Timestamp = ColumnType<Date, Date | string, Date | string>
type Json<T> = ColumnType<T, string, string>

/** A member's consent to a purpose (`ai_processing`) in one household; a row means granted. */
export interface AiConsentsTable {
  household_id: string
  user_id: string
  purpose: string
  granted_at: Timestamp
}

/** One conversation with the assistant; `stopped` takes no further turns. */
export interface AiConversationsTable {
  household_id: string
  id: string
  created_by: string
  title: string
  status: ColumnType<'open' | 'stopped', 'open' | 'stopped' | undefined, 'open' | 'stopped'>
  created_at: Timestamp
  updated_at: Timestamp
}

/** What a message carried besides its text: tool calls, their results, proposed actions. */
export type MessagePart =
  | { type: 'tool.call'; id: string; name: string; args: unknown }
  | { type: 'tool.result'; id: string; name: string; ok: boolean; result: unknown }
  | { type: 'action.proposed'; actionId: string }

/** One message of a conversation; an assistant message is `streaming` until its turn ends. */
export interface AiMessagesTable {
  household_id: string
  id: string
  conversation_id: string
  role: 'user' | 'assistant'
  content: string
  status: 'complete' | 'streaming' | 'interrupted' | 'failed'
  parts: ColumnType<MessagePart[], string | undefined, string>
  tokens: ColumnType<number, number | undefined, number>
  created_at: Timestamp
}

/** The states of an action the assistant proposed. */
export type ActionStatus = 'pending' | 'executed' | 'cancelled' | 'expired' | 'failed'

/** A write the assistant proposed; nothing changes until a member confirms it. */
export interface AiActionsTable {
  household_id: string
  id: string
  conversation_id: string | null
  created_by: string
  operation: string
  args: Json<Record<string, unknown>>
  summary: string
  preview: Json<unknown>
  status: ColumnType<ActionStatus, ActionStatus | undefined, ActionStatus>
  result: ColumnType<unknown, string | null | undefined, string | null>
  error: ColumnType<unknown, string | null | undefined, string | null>
  expires_at: Timestamp
  created_at: Timestamp
  resolved_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  resolved_by: string | null
}

/** Requests and tokens one member used in one household on one day (UTC). */
export interface AiUsageTable {
  household_id: string
  user_id: string
  day: string
  requests: ColumnType<number, number | undefined, number>
  tokens: ColumnType<number, number | undefined, number>
}

/** Something the data shows, with the rows and figures it rests on; `dedupe_key` makes it once. */
export interface AiInsightsTable {
  household_id: string
  id: string
  kind: string
  dedupe_key: string
  period_start: string
  period_end: string
  severity: 'info' | 'warning' | 'alert'
  title: string
  body: string
  evidence: Json<Record<string, unknown>>
  created_at: Timestamp
  dismissed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  dismissed_by: string | null
}

/** The assistant domain's tables. */
export type AssistantTables = {
  ai_consents: AiConsentsTable
  ai_conversations: AiConversationsTable
  ai_messages: AiMessagesTable
  ai_actions: AiActionsTable
  ai_usage: AiUsageTable
  ai_insights: AiInsightsTable
}

export type InsightRow = Selectable<AiInsightsTable>

export type ConversationRow = Selectable<AiConversationsTable>
export type MessageRow = Selectable<AiMessagesTable>
export type ActionRow = Selectable<AiActionsTable>
