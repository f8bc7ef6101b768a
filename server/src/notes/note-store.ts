import {
  claimIdempotencyKey,
  type Database,
  EngineError,
  type IdempotencyClaim,
  type IdempotencyDecision,
  type StoredAnswer,
  storeIdempotentAnswer,
} from '@hearth/engine'
import { type Kysely, sql } from 'kysely'
import * as Y from 'yjs'
import { type NoteKey, noteKeyText, targetExists } from './targets.ts'

/** The columns that name one note's rows, in `notes` and in `note_updates` alike. */
const ofNote = (key: NoteKey) =>
  ({ household_id: key.householdId, target_kind: key.kind, target_id: key.id }) as const

/** The channel notes are announced on: `update:<key>:<seq>` and `deleted:<key>` (migration 0034). */
export const NOTES_CHANNEL = 'hearth_notes'

/** A note's document as the store holds it. */
export interface StoredNote {
  /** The compacted state, if any, then each update since, in order. */
  state: Uint8Array | null
  compactedSeq: number
  updates: { seq: number; data: Uint8Array }[]
  text: string
  updatedAt: Date | null
}

/** A REST write's Idempotency-Key: claimed and answered in the write's own transaction. */
export interface NoteIdempotency {
  claim: IdempotencyClaim
  /** The answer to store, from the note's text and time after the write. */
  answer(text: string, updatedAt: Date): StoredAnswer
}

/** Reads a note's compacted state and every update written since; an unknown note is empty. */
export async function readNote(db: Kysely<Database>, key: NoteKey): Promise<StoredNote> {
  const row = await db
    .selectFrom('notes')
    .select(['state', 'compacted_seq', 'text', 'updated_at'])
    .where((eb) => eb.and(ofNote(key)))
    .executeTakeFirst()
  if (!row) return { state: null, compactedSeq: 0, updates: [], text: '', updatedAt: null }
  const updates = await db
    .selectFrom('note_updates')
    .select(['seq', 'data'])
    .where((eb) => eb.and(ofNote(key)))
    .orderBy('seq')
    .execute()
  return {
    state: row.state ? new Uint8Array(row.state) : null,
    compactedSeq: Number(row.compacted_seq),
    updates: updates.map((u) => ({ seq: Number(u.seq), data: new Uint8Array(u.data) })),
    text: row.text,
    updatedAt: row.updated_at,
  }
}

/** What other instances stored since a room last read the note: read under the note's lock. */
export interface MissedUpdates {
  /** The compacted state, when a compaction merged updates the room has not read. */
  state: Uint8Array | null
  updates: { seq: number; data: Uint8Array }[]
}

/**
 * Writes one update and the note's new plain text in one transaction, announcing it to the other
 * instances on commit. The `notes` row is locked first, so appends to one note run one at a time
 * in `seq` order and a compaction never merges past an update that has not committed yet. Under
 * the lock the writer reads what it missed (updates after `seenSeq`, other instances' writes not
 * yet announced to it) and `textAfter` computes the text from all of it, so the stored text is
 * always the merged note's. A target deleted meanwhile refuses the write (404).
 */
export async function appendNoteUpdate(
  db: Kysely<Database>,
  key: NoteKey,
  update: Uint8Array,
  seenSeq: number,
  textAfter: (missed: MissedUpdates) => string,
  idempotency?: NoteIdempotency,
): Promise<
  | { seq: number; updatedAt: Date; missed: MissedUpdates }
  | { decision: Exclude<IdempotencyDecision, { kind: 'proceed' }> }
> {
  return db.transaction().execute(async (tx) => {
    if (idempotency) {
      const decision = await claimIdempotencyKey(tx, idempotency.claim)
      if (decision.kind !== 'proceed') return { decision }
    }
    if (!(await targetExists(tx, key))) {
      throw new EngineError(404, 'NOT_FOUND', `The note's ${key.kind} ${key.id} no longer exists.`)
    }
    const now = new Date()
    await tx
      .insertInto('notes')
      .values({ household_id: key.householdId, target_kind: key.kind, target_id: key.id, updated_at: now })
      .onConflict((oc) => oc.columns(['household_id', 'target_kind', 'target_id']).doNothing())
      .execute()
    const row = await tx
      .selectFrom('notes')
      .select(['state', 'compacted_seq'])
      .where((eb) => eb.and(ofNote(key)))
      .forUpdate()
      .executeTakeFirstOrThrow()
    const later = await tx
      .selectFrom('note_updates')
      .select(['seq', 'data'])
      .where((eb) => eb.and(ofNote(key)))
      .where('seq', '>', String(seenSeq))
      .orderBy('seq')
      .execute()
    const missed: MissedUpdates = {
      state: row.state && Number(row.compacted_seq) > seenSeq ? new Uint8Array(row.state) : null,
      updates: later.map((u) => ({ seq: Number(u.seq), data: new Uint8Array(u.data) })),
    }
    const text = textAfter(missed)
    await tx
      .updateTable('notes')
      .set({ text, updated_at: now })
      .where((eb) => eb.and(ofNote(key)))
      .execute()
    const { seq } = await tx
      .insertInto('note_updates')
      .values({ household_id: key.householdId, target_kind: key.kind, target_id: key.id, data: update })
      .returning('seq')
      .executeTakeFirstOrThrow()
    await sql`select pg_notify(${NOTES_CHANNEL}, ${`update:${noteKeyText(key)}:${seq}`})`.execute(tx)
    if (idempotency) await storeIdempotentAnswer(tx, idempotency.claim, idempotency.answer(text, now))
    return { seq: Number(seq), updatedAt: now, missed }
  })
}

/**
 * Merges a note's updates into its state (Yjs merges losslessly) and deletes them, under a lock
 * on the note's row. Answers how many updates were merged.
 */
export async function compactNote(db: Kysely<Database>, key: NoteKey): Promise<number> {
  return db.transaction().execute(async (tx) => {
    const row = await tx
      .selectFrom('notes')
      .select(['state'])
      .where((eb) => eb.and(ofNote(key)))
      .forUpdate()
      .executeTakeFirst()
    if (!row) return 0
    const updates = await tx
      .selectFrom('note_updates')
      .select(['seq', 'data'])
      .where((eb) => eb.and(ofNote(key)))
      .orderBy('seq')
      .execute()
    if (updates.length === 0) return 0
    const parts = updates.map((u) => new Uint8Array(u.data))
    const merged = Y.mergeUpdates(row.state ? [new Uint8Array(row.state), ...parts] : parts)
    const last = updates.at(-1)!.seq
    await tx
      .updateTable('notes')
      .set({ state: merged, compacted_seq: last })
      .where((eb) => eb.and(ofNote(key)))
      .execute()
    await tx
      .deleteFrom('note_updates')
      .where((eb) => eb.and(ofNote(key)))
      .where('seq', '<=', last)
      .execute()
    return updates.length
  })
}

/** Parses a `NOTES_CHANNEL` payload. */
export function parseNoteNotice(
  payload: string,
): { type: 'update'; key: NoteKey; seq: number } | { type: 'deleted'; key: NoteKey } | null {
  const [type, householdId, kind, ...rest] = payload.split(':')
  if (!householdId || !kind) return null
  if (type === 'deleted')
    return { type, key: { householdId, kind: kind as NoteKey['kind'], id: rest.join(':') } }
  if (type === 'update' && rest.length >= 2) {
    const seq = Number(rest.at(-1))
    return { type, key: { householdId, kind: kind as NoteKey['kind'], id: rest.slice(0, -1).join(':') }, seq }
  }
  return null
}
