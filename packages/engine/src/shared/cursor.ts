import { EngineError } from '../errors.ts'
import { DateSchema } from './schema.ts'

/**
 * Every list's cursor: base64url of a versioned, pipe-joined sort key of the page's last row.
 * Opaque to callers, and browser-safe (no Buffer): the engine also runs inside client apps.
 */
function encode(text: string): string {
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/** Reads a cursor's sort key through `pattern`, or answers 400 INVALID_CURSOR. */
function decode(cursor: string, pattern: RegExp): RegExpExecArray {
  let text = ''
  if (/^[A-Za-z0-9_-]{1,300}$/.test(cursor)) {
    try {
      text = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'))
    } catch {
      text = ''
    }
  }
  const match = pattern.exec(text)
  if (!match) throw invalidCursor()
  return match
}

function invalidCursor(): EngineError {
  return new EngineError(
    400,
    'INVALID_CURSOR',
    'The cursor is not one this list issued; start again without it.',
  )
}

/** The sort key of a transaction list: date, then id, both descending. */
export interface TransactionCursor {
  date: string
  id: string
}

export function encodeCursor(key: TransactionCursor): string {
  return encode(`v1|${key.date}|${key.id}`)
}

export function decodeCursor(cursor: string): TransactionCursor {
  const [, date, id] = decode(cursor, /^v1\|(\d{4}-\d{2}-\d{2})\|([0-9A-Za-z:-]{1,100})$/)
  if (!DateSchema.safeParse(date).success) throw invalidCursor()
  return { date: date!, id: id! }
}

/** The sort key of a list ordered by an instant (created or updated), then id. */
export interface InstantCursor {
  at: string
  id: string
}

export function encodeInstantCursor(key: InstantCursor): string {
  return encode(`a1|${key.at}|${key.id}`)
}

export function decodeInstantCursor(cursor: string): InstantCursor {
  const [, at, id] = decode(cursor, /^a1\|(\d{4}-\d{2}-\d{2}T[\d:.]+Z)\|([0-9A-Za-z]{1,64})$/)
  if (Number.isNaN(Date.parse(at!))) throw invalidCursor()
  return { at: at!, id: id! }
}

/** The sort key of a list of ULID-keyed rows, newest first: the id alone. */
export function encodeIdCursor(id: string): string {
  return encode(`v1|${id}`)
}

export function decodeIdCursor(cursor: string): string {
  return decode(cursor, /^v1\|([0-9A-Z]{26})$/)[1]!
}

/**
 * One page from the `limit + 1` rows a list fetched: the first `limit`, and the cursor of the
 * last of them when a further row shows another page follows.
 */
export function pageOf<Row>(
  rows: Row[],
  limit: number,
  cursorOf: (last: Row) => string,
): { page: Row[]; nextCursor: string | null } {
  const page = rows.slice(0, limit)
  const last = page.at(-1)
  return { page, nextCursor: rows.length > limit && last !== undefined ? cursorOf(last) : null }
}

/** The sort key of a list ordered by a household version, newest first (activity). */
export function encodeVersionCursor(version: number): string {
  return encode(`n1|${version}`)
}

export function decodeVersionCursor(cursor: string): number {
  return Number(decode(cursor, /^n1\|(\d{1,15})$/)[1])
}
