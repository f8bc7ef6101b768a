import { isStorableText } from '@hearth/engine'
import * as Y from 'yjs'

/** The one shared type a note's document may hold: a plain Y.Text under this name. */
export const NOTE_TEXT_NAME = 'text'
/** The longest note, in UTF-16 code units (as `Y.Text.length` counts). */
export const MAX_NOTE_CHARS = 20_000
/** The largest single update a client may send, in bytes. */
export const MAX_NOTE_UPDATE_BYTES = 256 * 1024

/** Why a document is not a note, or null if it is one: text only, under the cap. */
export function noteProblem(doc: Y.Doc): { code: string; detail: string } | null {
  for (const name of doc.share.keys()) {
    if (name !== NOTE_TEXT_NAME) {
      return {
        code: 'NOTE_NOT_TEXT',
        detail: `A note holds one Y.Text named "${NOTE_TEXT_NAME}"; "${name}" is not allowed.`,
      }
    }
  }
  const text = doc.getText(NOTE_TEXT_NAME)
  if (text._map.size > 0) {
    return { code: 'NOTE_NOT_TEXT', detail: 'A note is plain text: it takes no attributes.' }
  }
  for (let item = text._start; item; item = item.right) {
    if (!item.deleted && !(item.content instanceof Y.ContentString)) {
      return {
        code: 'NOTE_NOT_TEXT',
        detail: 'A note is plain text: no embeds, formatting or nested types.',
      }
    }
  }
  if (!isStorableText(text.toString())) {
    return {
      code: 'NOTE_NOT_TEXT',
      detail: 'A note must not contain the NUL character (U+0000) or an unpaired surrogate.',
    }
  }
  if (text.length > MAX_NOTE_CHARS) {
    return {
      code: 'NOTE_TOO_LONG',
      detail: `A note holds at most ${MAX_NOTE_CHARS} characters; this one would hold ${text.length}.`,
    }
  }
  return null
}

/** The smallest edit that turns `from` into `to`: the common ends are kept. */
export function textEdit(from: string, to: string): { index: number; remove: number; insert: string } {
  let start = 0
  const max = Math.min(from.length, to.length)
  while (start < max && from.charCodeAt(start) === to.charCodeAt(start)) start++
  let end = 0
  while (end < max - start && from.charCodeAt(from.length - 1 - end) === to.charCodeAt(to.length - 1 - end)) {
    end++
  }
  // Never split a surrogate pair: an emoji stays whole on both sides of the edit.
  if (start > 0 && isHighSurrogate(from.charCodeAt(start - 1))) start--
  if (end > 0 && isLowSurrogate(from.charCodeAt(from.length - end))) end--
  return { index: start, remove: from.length - start - end, insert: to.slice(start, to.length - end) }
}

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff
const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff
