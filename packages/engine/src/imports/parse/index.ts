import { parseCamt053 } from './camt.ts'
import { type CsvMapping, parseCsv } from './csv.ts'
import { parseOfx } from './ofx.ts'
import { type Statement, StatementError } from './statement.ts'

/** The largest file an import takes, in bytes (about 50,000 OFX rows). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024
/** The most rows one import takes. */
export const MAX_FILE_ROWS = 10_000

/** The formats an import reads; `qfx` is OFX as Quicken names it. */
export const IMPORT_FORMATS = ['ofx', 'qfx', 'csv', 'camt053'] as const
export type ImportFormat = (typeof IMPORT_FORMATS)[number]

/** Encodings a file may come in; `auto` reads UTF-8 and falls back to Windows-1252. */
export const IMPORT_ENCODINGS = ['auto', 'utf-8', 'windows-1252', 'latin1'] as const
export type ImportEncoding = (typeof IMPORT_ENCODINGS)[number]

/** A bank file as an import receives it: text, or base64 bytes in an encoding. */
export interface BankFile {
  format: ImportFormat
  content?: string
  contentBase64?: string
  encoding?: ImportEncoding
  mapping?: CsvMapping
}

function base64Bytes(text: string): Uint8Array {
  if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(text)) {
    throw new StatementError('IMPORT_FILE_UNREADABLE', 'contentBase64 is not base64.', 'contentBase64')
  }
  const binary = atob(text.replace(/\s/g, ''))
  const out = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i)
  return out
}

/**
 * The file's text: `content` as given, or `contentBase64` decoded in its encoding with the
 * platform's TextDecoder (the same in browsers and Node): UTF-8 (a BOM dropped), Windows-1252 or
 * Latin-1, or `auto`, UTF-8 when the bytes are valid UTF-8, else Windows-1252.
 */
export function fileText(file: BankFile): string {
  let text: string
  if (file.contentBase64 !== undefined) {
    const bytes = base64Bytes(file.contentBase64)
    if (bytes.length > MAX_FILE_BYTES) throw tooLarge()
    // A zip (or any archive) is bytes, never text: refused here, never inflated.
    if (bytes.includes(0)) throw binary()
    const encoding = file.encoding ?? 'auto'
    if (encoding === 'auto') {
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
      } catch {
        text = new TextDecoder('windows-1252').decode(bytes)
      }
    } else text = new TextDecoder(encoding).decode(bytes)
  } else {
    text = file.content ?? ''
    // Text is counted in UTF-8 bytes, as the file it stands for; only text that could be over
    // the limit is encoded to count.
    if (text.length * 3 > MAX_FILE_BYTES && new TextEncoder().encode(text).length > MAX_FILE_BYTES)
      throw tooLarge()
  }
  if (text.length > MAX_FILE_BYTES) throw tooLarge()
  text = text.replace(/^\uFEFF/, '')
  if (text.trim() === '') throw new StatementError('IMPORT_FILE_EMPTY', 'The file is empty.')
  // Control characters other than tab and line breaks do not occur in bank text files.
  const head = text.slice(0, 4096)
  for (let i = 0; i < head.length; i++) {
    const c = head.charCodeAt(i)
    if (c < 9 || (c > 13 && c < 32)) throw binary()
  }
  return text
}

function tooLarge(): StatementError {
  return new StatementError(
    'IMPORT_FILE_TOO_LARGE',
    `The file is larger than ${MAX_FILE_BYTES} bytes; split it.`,
  )
}

function binary(): StatementError {
  return new StatementError(
    'IMPORT_FILE_BINARY',
    'The file is binary (an archive or a spreadsheet?); export the statement as OFX, QFX, CSV or camt.053 text.',
  )
}

/** Reads a bank file into a statement; a file that cannot be read at all throws a StatementError. */
export function readStatement(file: BankFile): Statement {
  const text = fileText(file)
  // No bank file needs a DTD: refused wherever it sits (an OFX header precedes <OFX>).
  if (file.format !== 'csv' && /<!DOCTYPE|<!ENTITY/i.test(text)) {
    throw new StatementError(
      'IMPORT_FILE_UNSAFE',
      'The file declares a document type or entities; bank files never need one, so it is refused.',
    )
  }
  const statement =
    file.format === 'csv'
      ? parseCsv(text, file.mapping)
      : file.format === 'camt053'
        ? parseCamt053(text)
        : parseOfx(text)
  if (statement.rows.length + statement.refused.length > MAX_FILE_ROWS) {
    throw new StatementError(
      'IMPORT_FILE_TOO_LARGE',
      `The file holds more than ${MAX_FILE_ROWS} rows; split it.`,
    )
  }
  if (statement.rows.length + statement.refused.length === 0) {
    throw new StatementError('IMPORT_FILE_EMPTY', 'The file holds no transactions.')
  }
  return statement
}

export type { CsvMapping } from './csv.ts'
export type { RefusedRow, Statement, StatementRow } from './statement.ts'
export { StatementError } from './statement.ts'
