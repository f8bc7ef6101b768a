import { EngineError } from '../errors.ts'
import { DateSchema } from '../shared/schema.ts'

/** The sort key of the last row a page returned: lists run by date, then id, both descending. */
export interface TransactionCursor {
  date: string
  id: string
}

const VERSION = 'v1'

/** Browser-safe (no Buffer): the engine also runs inside client apps. */
function fromBase64Url(text: string): string {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(text)) return ''
  try {
    return atob(text.replace(/-/g, '+').replace(/_/g, '/'))
  } catch {
    return ''
  }
}

/** An opaque cursor: base64url of a versioned, pipe-joined sort key. */
export function encodeCursor(key: TransactionCursor): string {
  return btoa(`${VERSION}|${key.date}|${key.id}`).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/** Reads a cursor back, or answers 400 INVALID_CURSOR for anything this code did not issue. */
export function decodeCursor(cursor: string): TransactionCursor {
  const match = /^v1\|(\d{4}-\d{2}-\d{2})\|([0-9A-Za-z:-]{1,100})$/.exec(fromBase64Url(cursor))
  if (!match || !DateSchema.safeParse(match[1]).success) {
    throw new EngineError(
      400,
      'INVALID_CURSOR',
      'The cursor is not one this list issued; start again without it.',
    )
  }
  return { date: match[1]!, id: match[2]! }
}
