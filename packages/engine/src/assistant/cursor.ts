import { EngineError } from '../errors.ts'

/** The sort key of the last row of an assistant list page: an instant and an id. */
export interface InstantCursor {
  at: string
  id: string
}

/** An opaque cursor: base64url of a versioned, pipe-joined sort key. */
export function encodeInstantCursor(key: InstantCursor): string {
  return btoa(`a1|${key.at}|${key.id}`).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/** Reads a cursor back, or answers 400 INVALID_CURSOR for anything these lists did not issue. */
export function decodeInstantCursor(cursor: string): InstantCursor {
  let text = ''
  if (/^[A-Za-z0-9_-]{1,300}$/.test(cursor)) {
    try {
      text = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'))
    } catch {
      text = ''
    }
  }
  const match = /^a1\|(\d{4}-\d{2}-\d{2}T[\d:.]+Z)\|([0-9A-Za-z]{1,64})$/.exec(text)
  if (!match || Number.isNaN(Date.parse(match[1]!))) {
    throw new EngineError(
      400,
      'INVALID_CURSOR',
      'The cursor is not one this list issued; start again without it.',
    )
  }
  return { at: match[1]!, id: match[2]! }
}
