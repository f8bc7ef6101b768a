import { protocol } from '@electric-sql/pglite'

/** A result column as a RowDescription names it. */
export interface Field {
  name: string
  dataTypeID: number
}

/**
 * The backend messages `PreparedPGlite` reads, named as `pg-protocol` names them. The common
 * ones are read here; the rare ones are read by `pg-protocol`: an error is its `DatabaseError`
 * itself (the one PGlite's own `query()` throws), a notification its channel and payload, and
 * anything else (a notice, a parameter status) is kept as `other`.
 */
export type BackendMessage =
  | { name: 'rowDescription'; fields: Field[] }
  | { name: 'dataRow'; fields: (string | null)[] }
  | { name: 'commandComplete'; text: string }
  | { name: 'parameterDescription'; dataTypeIDs: number[] }
  | { name: 'readyForQuery' }
  | { name: 'parseComplete' | 'bindComplete' | 'closeComplete' | 'noData' | 'emptyQuery' | 'portalSuspended' }
  | { name: 'notification'; channel: string; payload: string }
  | { name: 'error'; message: string }
  | { name: 'other'; message: { name: string } }

const decoder = new TextDecoder()

/** Messages without a body, by their type character. */
const EMPTY: Record<string, BackendMessage> = {
  '1': { name: 'parseComplete' },
  '2': { name: 'bindComplete' },
  '3': { name: 'closeComplete' },
  n: { name: 'noData' },
  I: { name: 'emptyQuery' },
  s: { name: 'portalSuspended' },
}

/**
 * Reads the backend messages in `bytes`, PostgreSQL's answer to one call into PGlite.
 *
 * PGlite's own reader (`pg-protocol`'s) copies every field of every row into an ArrayBuffer of its
 * own before decoding it; reading 400 rows of six columns took 3.0 ms on this machine
 * (2026-11-25), and the backend's own work on them (the same rows aggregated into one text) took
 * 0.3 ms. This reads each field straight from the bytes PGlite wrote.
 */
export function readBackendMessages(bytes: Uint8Array): BackendMessage[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const messages: BackendMessage[] = []
  let offset = 0
  while (offset + 5 <= bytes.length) {
    const code = bytes[offset]!
    const end = offset + 1 + view.getInt32(offset + 1)
    let at = offset + 5
    switch (code) {
      case 0x44: {
        // 'D' DataRow: a count, then each field's length (-1 for null) and text.
        const count = view.getInt16(at)
        at += 2
        const fields: (string | null)[] = new Array(count)
        for (let i = 0; i < count; i++) {
          const length = view.getInt32(at)
          at += 4
          if (length < 0) {
            fields[i] = null
          } else {
            fields[i] = text(bytes, at, at + length)
            at += length
          }
        }
        messages.push({ name: 'dataRow', fields })
        break
      }
      case 0x54: {
        // 'T' RowDescription: per field its name, table, column, type, size, modifier, format.
        const count = view.getInt16(at)
        at += 2
        const fields: Field[] = []
        for (let i = 0; i < count; i++) {
          const nameEnd = bytes.indexOf(0, at)
          const name = decoder.decode(bytes.subarray(at, nameEnd))
          at = nameEnd + 1
          fields.push({ name, dataTypeID: view.getInt32(at + 6) })
          at += 18
        }
        messages.push({ name: 'rowDescription', fields })
        break
      }
      case 0x43: // 'C' CommandComplete: the command tag.
        messages.push({ name: 'commandComplete', text: decoder.decode(bytes.subarray(at, end - 1)) })
        break
      case 0x5a: // 'Z' ReadyForQuery
        messages.push({ name: 'readyForQuery' })
        break
      case 0x74: {
        // 't' ParameterDescription: the parameters' type oids.
        const count = view.getInt16(at)
        const dataTypeIDs: number[] = []
        for (let i = 0; i < count; i++) dataTypeIDs.push(view.getInt32(at + 2 + 4 * i))
        messages.push({ name: 'parameterDescription', dataTypeIDs })
        break
      }
      default: {
        const empty = EMPTY[String.fromCharCode(code)]
        if (empty) {
          messages.push(empty)
        } else {
          // Rare (an error, a notice, a notification): read by pg-protocol, as PGlite would.
          new protocol.Parser().parse(bytes.slice(offset, end), (message) => {
            if (message.name === 'notification') {
              const { channel, payload } = message as unknown as { channel: string; payload: string }
              messages.push({ name: 'notification', channel, payload })
            } else if (message.name === 'error') {
              messages.push(message as unknown as BackendMessage)
            } else {
              messages.push({ name: 'other', message })
            }
          })
        }
      }
    }
    offset = end
  }
  return messages
}

/** UTF-8 text; short ASCII (ids, dates, numbers: most fields) without a decoder call. */
function text(bytes: Uint8Array, start: number, end: number): string {
  if (end - start > 24) return decoder.decode(bytes.subarray(start, end))
  let out = ''
  for (let i = start; i < end; i++) {
    const byte = bytes[i]!
    if (byte >= 0x80) return decoder.decode(bytes.subarray(start, end))
    out += String.fromCharCode(byte)
  }
  return out
}
