import type { QueryArgs } from '../../hooks.ts'

/** The CSV mapping the REST API and the SDK take (`mapping` of an import preview or commit). */
export type CsvMapping = NonNullable<QueryArgs<'imports.preview'>['mapping']>

/** The bank file formats the import reads. */
export type ImportFormat = 'ofx' | 'qfx' | 'csv' | 'camt053'

/** The CSV mapping form's fields as typed: every REST mapping option, each a text or a tick. */
export interface MappingForm {
  date: string
  amount: string
  debit: string
  credit: string
  payee: string
  memo: string
  externalId: string
  dateFormat: string
  decimal: '' | '.' | ','
  delimiter: '' | ',' | ';' | '\t'
  headerLine: string
  /** Ticked: the file has no header line and columns are named by 0-based index. */
  noHeader: boolean
  invert: boolean
}

/** A form with nothing filled in: the server guesses from the header. */
export const EMPTY_MAPPING_FORM: MappingForm = {
  date: '',
  amount: '',
  debit: '',
  credit: '',
  payee: '',
  memo: '',
  externalId: '',
  dateFormat: '',
  decimal: '',
  delimiter: '',
  headerLine: '',
  noHeader: false,
  invert: false,
}

const COLUMNS = ['date', 'amount', 'debit', 'credit', 'payee', 'memo', 'externalId', 'dateFormat'] as const

/** The REST mapping a form says: blank fields left out, so the server fills them from the file. */
export function mappingOf(form: MappingForm): CsvMapping {
  const mapping: CsvMapping = {}
  for (const key of COLUMNS) {
    const value = form[key].trim()
    if (value) mapping[key] = value
  }
  if (form.decimal) mapping.decimal = form.decimal
  if (form.delimiter) mapping.delimiter = form.delimiter
  if (form.noHeader) mapping.header = false
  const line = Number(form.headerLine.trim())
  if (form.headerLine.trim() && Number.isInteger(line)) mapping.headerLine = line
  if (form.invert) mapping.invert = true
  return mapping
}

/** The form for a saved mapping (an account's, from `imports.getMapping`). */
export function formOf(mapping: CsvMapping): MappingForm {
  const form = { ...EMPTY_MAPPING_FORM }
  for (const key of COLUMNS) form[key] = mapping[key] ?? ''
  form.decimal = mapping.decimal ?? ''
  form.delimiter = mapping.delimiter ?? ''
  form.headerLine = mapping.headerLine === undefined ? '' : String(mapping.headerLine)
  form.noHeader = mapping.header === false
  form.invert = mapping.invert === true
  return form
}

/** The format a file's name says (`.xml` is camt.053), or null. */
export function formatOfFile(name: string): ImportFormat | null {
  const ext = name.toLowerCase().split('.').pop()
  return ext === 'ofx' || ext === 'qfx' || ext === 'csv' ? ext : ext === 'xml' ? 'camt053' : null
}
