import type { ColumnType, Generated } from 'kysely'

/** One row change, written by trigger, in the order sync replays them. */
export interface ChangeLogTable {
  seq: Generated<number>
  household_id: string
  version: number
  table_name: string
  row_id: string
  op: 'upsert' | 'delete'
  row: Record<string, unknown> | null
  created_at: ColumnType<Date, never, never>
}
