import type { ColumnType } from 'kysely'

/** The stored outcome of a write request, replayed when the same Idempotency-Key comes back. */
export interface IdempotencyKeysTable {
  user_id: string
  key: string
  fingerprint: string
  state: 'running' | 'done'
  locked_until: Date
  status: number | null
  content_type: string | null
  body: string | null
  created_at: ColumnType<Date, Date | string | undefined, never>
}
