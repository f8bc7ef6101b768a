import type { ColumnType, Generated } from 'kysely'

/** One committed household operation on the server: when, who, which operation (migration 0038). */
export interface ActivityTable {
  household_id: string
  /** The household version the operation committed at: one operation, one version. */
  version: number
  id: string
  occurred_at: ColumnType<Date, Date | string, Date | string>
  operation: string
  /** The scope the operation needs; a reader needs its read counterpart to see the entry. */
  scope: string | null
  user_id: string
  /** How the member acted: `key`, `session`, `device`, `job`, `assistant`, `cli` or `member`. */
  actor_kind: string
  /** Which key, device (client id), job or assistant action; null when the kind says it all. */
  actor_ref: string | null
  /** A device's push: the device's own id of the mutation (migration 0046), which its undo names. */
  mutation_id: number | null
  /** The version of the undo that took this operation back, if any. */
  undone_by: number | null
}

/** One row an operation changed, its image before (null: inserted) and after (null: deleted). */
export interface ActivityChangesTable {
  household_id: string
  version: number
  table_name: string
  row_id: string
  seq: Generated<number>
  before: Record<string, unknown> | null
  after: Record<string, unknown> | null
  transaction_id: string | null
  account_id: string | null
  category_id: string | null
  month: string | null
}

export interface ActivityTables {
  activity: ActivityTable
  activity_changes: ActivityChangesTable
}
