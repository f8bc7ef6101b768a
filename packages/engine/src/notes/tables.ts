import type { ColumnType, Generated } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>

/** What a note hangs on. */
export type NoteTargetKind = 'account' | 'category' | 'month' | 'transaction'

/** One shared note's Yjs document: its compacted state and its plain text (migration 0034). */
export interface NotesTable {
  household_id: string
  target_kind: NoteTargetKind
  target_id: string
  state: Uint8Array | null
  compacted_seq: ColumnType<string, string | number | undefined, string | number>
  text: ColumnType<string, string | undefined, string>
  created_at: Timestamp
  updated_at: Timestamp
}

/** One Yjs update written to a note since its last compaction. */
export interface NoteUpdatesTable {
  household_id: string
  target_kind: NoteTargetKind
  target_id: string
  seq: Generated<string>
  data: Uint8Array
  created_at: Timestamp
}

export interface NoteTables {
  notes: NotesTable
  note_updates: NoteUpdatesTable
}
