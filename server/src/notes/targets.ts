import type { Database, NoteTargetKind, Scope } from '@hearth/engine'
import type { Kysely } from 'kysely'

/** The things a note can hang on. */
export const NOTE_KINDS = [
  'account',
  'category',
  'month',
  'transaction',
] as const satisfies readonly NoteTargetKind[]

/** One note's document: its household, and what it hangs on. */
export interface NoteKey {
  householdId: string
  kind: NoteTargetKind
  id: string
}

/** A note is read and written with its target's own scopes. */
export const NOTE_SCOPES: Record<NoteTargetKind, { read: Scope; write: Scope }> = {
  account: { read: 'read:accounts', write: 'write:accounts' },
  category: { read: 'read:categories', write: 'write:categories' },
  month: { read: 'read:budgets', write: 'write:budgets' },
  transaction: { read: 'read:transactions', write: 'write:transactions' },
}

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/

export function isNoteKind(value: string): value is NoteTargetKind {
  return (NOTE_KINDS as readonly string[]).includes(value)
}

/** The key as one string: the room name, a notification's tail. */
export function noteKeyText(key: NoteKey): string {
  return `${key.householdId}:${key.kind}:${key.id}`
}

/**
 * Whether the note's target exists in the household: a live (not deleted, not merged) account,
 * category or transaction, or a month from 1900-01 to 2999-12 (a budget month is not a row).
 */
export async function targetExists(db: Kysely<Database>, key: NoteKey): Promise<boolean> {
  if (key.kind === 'month') {
    const m = MONTH.exec(key.id)
    return Boolean(m && Number(m[1]) >= 1900 && Number(m[1]) <= 2999)
  }
  if (key.id.length > 200 || key.id.includes('\0')) return false
  if (key.kind === 'transaction') {
    const row = await db
      .selectFrom('transactions')
      .select('id')
      .where('household_id', '=', key.householdId)
      .where('id', '=', key.id)
      .where('deleted_at', 'is', null)
      .where('merged_into_id', 'is', null)
      .executeTakeFirst()
    return Boolean(row)
  }
  const table = key.kind === 'account' ? 'accounts' : 'categories'
  const row = await db
    .selectFrom(table)
    .select('id')
    .where('household_id', '=', key.householdId)
    .where('id', '=', key.id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst()
  return Boolean(row)
}
