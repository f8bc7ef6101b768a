import {
  ImportBatchListSchema,
  ImportBatchSchema,
  ImportMappingSchema,
  ImportPlanSchema,
  ImportResultSchema,
} from '@hearth/contracts'
import { EngineError, MAX_FILE_BYTES, operations } from '@hearth/engine'
import { z } from 'zod'
import { type FormBody, type OperationRoute, operationRoute } from '../http/operation-route.ts'

/** The paths whose body carries a bank file, and may be as large as the largest file (base64 included). */
export const IMPORT_PATH = /^\/households\/[^/]+\/imports(\/preview)?$/
export const IMPORT_BODY_BYTES = Math.ceil((MAX_FILE_BYTES * 4) / 3) + 64 * 1024

/** Form fields that carry a boolean, as `true` or `false`. */
const FORM_BOOLEANS = new Set(['skipRefused', 'saveMapping', 'acceptBankAccount'])
/** The format a file's name implies, when the form names none. */
const FORMAT_BY_EXTENSION: Record<string, string> = { ofx: 'ofx', qfx: 'qfx', csv: 'csv', xml: 'camt053' }

function formField(path: string, message: string): EngineError {
  return new EngineError(400, 'VALIDATION_FAILED', 'The request has invalid fields.', {
    errors: [{ path, message, code: 'invalid_form_field' }],
  })
}

/**
 * A bank file as a multipart upload: the `file` part's bytes become `contentBase64` (read in
 * `encoding`, default auto), the other fields are the JSON body's as text (`mapping` as JSON,
 * booleans as `true`/`false`), and `format` may be left out when the file's name ends in .ofx,
 * .qfx, .csv or .xml (camt.053). A file over the largest an import takes is refused before it is
 * read further.
 */
function importForm(commit: boolean): FormBody {
  const Bool = z.enum(['true', 'false'])
  return {
    schema: z
      .object({
        file: z.string().meta({ format: 'binary', description: 'The bank file, at most 10 MiB.' }),
        accountId: z.string(),
        format: z
          .enum(['ofx', 'qfx', 'csv', 'camt053'])
          .optional()
          .describe('Left out: from the file name (.ofx, .qfx, .csv, .xml for camt.053).'),
        encoding: z.enum(['auto', 'utf-8', 'windows-1252', 'latin1']).optional(),
        mapping: z.string().optional().describe('The CSV mapping as JSON text.'),
        ...(commit && {
          id: z.string().optional(),
          planDigest: z.string().optional(),
          skipRefused: Bool.optional(),
          saveMapping: Bool.optional(),
          acceptBankAccount: Bool.optional(),
        }),
      })
      .meta({ id: commit ? 'ImportCommitForm' : 'ImportPreviewForm' }),
    async read(form) {
      const body: Record<string, unknown> = {}
      let fileName: string | null = null
      const entries: [string, FormDataEntryValue][] = []
      form.forEach((value, key) => {
        entries.push([key, value])
      })
      for (const [key, value] of entries) {
        const name = key === 'file' ? 'contentBase64' : key
        if (Object.hasOwn(body, name)) throw formField(key, `The form gives ${key} twice.`)
        if (key === 'file') {
          if (typeof value === 'string')
            throw formField(key, 'Send the file as a file part (curl -F file=@statement.ofx).')
          if (value.size > MAX_FILE_BYTES) {
            throw new EngineError(
              400,
              'IMPORT_FILE_TOO_LARGE',
              `The file is larger than ${MAX_FILE_BYTES} bytes; split it.`,
              { errors: [{ path: 'file', message: `${value.size} bytes.`, code: 'too_large' }] },
            )
          }
          body.contentBase64 = Buffer.from(await value.arrayBuffer()).toString('base64')
          fileName = value.name
          continue
        }
        if (typeof value !== 'string') throw formField(key, `${key} is a text field, not a file.`)
        if (FORM_BOOLEANS.has(key) && (value === 'true' || value === 'false')) body[key] = value === 'true'
        else if (key === 'mapping') {
          try {
            body.mapping = JSON.parse(value)
          } catch {
            throw formField(key, 'mapping must be the CSV mapping as JSON text.')
          }
        } else body[key] = value
      }
      const extension = fileName?.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1]
      if (body.format === undefined && extension && FORMAT_BY_EXTENSION[extension])
        body.format = FORMAT_BY_EXTENSION[extension]
      return body
    },
  }
}

const tag = 'Imports'
const imports = '/households/{householdId}/imports'
const fileErrors = [
  'VALIDATION_FAILED',
  'IMPORT_FILE_EMPTY',
  'IMPORT_FILE_TRUNCATED',
  'IMPORT_FILE_BINARY',
  'IMPORT_FILE_UNREADABLE',
  'IMPORT_FILE_UNSAFE',
  'IMPORT_MULTIPLE_ACCOUNTS',
  'IMPORT_COLUMN_MISSING',
  'IMPORT_DATE_FORMAT_AMBIGUOUS',
  'IMPORT_DATE_FORMAT_UNKNOWN',
  'IMPORT_CURRENCY_MISMATCH',
  'IMPORT_FILE_TOO_LARGE',
]
const body =
  "Body `{accountId, format: ofx|qfx|csv|camt053, content (the file as text) | contentBase64 (its bytes), encoding?: auto|utf-8|windows-1252|latin1, mapping?}` as JSON, or the same fields as `multipart/form-data` with the file as a `file` part (`format` then defaults from the file name; `mapping` is JSON text; booleans `true`/`false`); see docs/api/imports.md. A file holds at most 10 MiB and 10,000 rows (400 `IMPORT_FILE_TOO_LARGE`); these two routes take bodies up to about 13.4 MiB (a 10 MiB file in base64), beyond the server's body limit for other routes (413 `PAYLOAD_TOO_LARGE`)."

/** Bank file imports: preview, commit, undo, the batches, and an account's saved CSV mapping. */
export const importRoutes: OperationRoute[] = [
  operationRoute(operations.imports.preview, {
    method: 'post',
    path: `${imports}/preview`,
    status: 200,
    tag,
    response: ImportPlanSchema,
    responseDescription: 'The plan; nothing changed.',
    form: importForm(false),
    notes: `${body} Changes nothing.`,
    errors: { 400: fileErrors, 404: ['NOT_FOUND'] },
  }),
  operationRoute(operations.imports.commit, {
    method: 'post',
    path: imports,
    status: 201,
    tag,
    clientIds: ['id'],
    response: ImportResultSchema,
    responseDescription: 'The batch, its counts, and the file balance beside the account balance.',
    form: importForm(true),
    notes: `${body} Plus \`id?\`, \`planDigest?\` (refused with 409 IMPORT_PLAN_CHANGED when the plan moved on since the preview), \`skipRefused?\` (import the readable rows of a file with refused rows; otherwise 400 IMPORT_ROWS_REFUSED listing their lines) , \`saveMapping?\` and \`acceptBankAccount?\` (import a file whose bank account is not the account's, as preview's \`bankAccount\` reports it; otherwise 409 IMPORT_ACCOUNT_MISMATCH). One transaction: all of the batch or none of it.`,
    errors: {
      400: [...fileErrors, 'IMPORT_ROWS_REFUSED'],
      404: ['NOT_FOUND'],
      409: ['ID_ALREADY_EXISTS', 'IMPORT_PLAN_CHANGED', 'IMPORT_ACCOUNT_MISMATCH'],
    },
  }),
  operationRoute(operations.imports.list, {
    method: 'get',
    path: imports,
    status: 200,
    tag,
    response: ImportBatchListSchema,
    responseDescription: 'The import batches, newest first (at most 500).',
  }),
  operationRoute(operations.imports.get, {
    method: 'get',
    path: `${imports}/{importId}`,
    status: 200,
    tag,
    response: ImportBatchSchema,
    responseDescription: 'The import batch.',
  }),
  operationRoute(operations.imports.undo, {
    method: 'post',
    path: `${imports}/{importId}/undo`,
    status: 200,
    tag,
    optionalBody: true,
    response: ImportBatchSchema,
    responseDescription: 'The batch, undone.',
    notes:
      'Removes the rows the import created and separates the bank rows it matched (their twins regain their date and status). Refused with 409 naming the row (`transactionId`) when one was reconciled (`TRANSACTION_RECONCILED`) or linked as a transfer (`IMPORT_ROW_LINKED`) since.',
    errors: {
      404: ['NOT_FOUND'],
      409: ['IMPORT_ALREADY_UNDONE', 'TRANSACTION_RECONCILED', 'IMPORT_ROW_LINKED'],
    },
  }),
  operationRoute(operations.imports.getMapping, {
    method: 'get',
    path: '/households/{householdId}/accounts/{accountId}/import-mapping',
    status: 200,
    tag,
    response: ImportMappingSchema,
    responseDescription: "The account's saved CSV mapping.",
  }),
  operationRoute(operations.imports.saveMapping, {
    method: 'put',
    path: '/households/{householdId}/accounts/{accountId}/import-mapping',
    status: 200,
    tag,
    response: ImportMappingSchema,
    responseDescription: 'The saved mapping.',
    notes: "Body `{mapping}`; the account's CSV files use it when they bring no mapping.",
  }),
]
