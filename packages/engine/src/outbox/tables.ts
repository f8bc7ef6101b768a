import type { ColumnType, Generated } from 'kysely'

/** A side effect waiting to happen after its transaction committed (events, webhooks, notices). */
export interface OutboxTable {
  id: Generated<number>
  household_id: string | null
  topic: string
  payload: ColumnType<Record<string, unknown>, string, string>
  status: Generated<'pending' | 'done' | 'failed'>
  attempts: Generated<number>
  available_at: ColumnType<Date, Date | string | undefined, Date | string>
  locked_until: Date | null
  last_error: string | null
  created_at: ColumnType<Date, Date | string | undefined, never>
  processed_at: Date | null
}
