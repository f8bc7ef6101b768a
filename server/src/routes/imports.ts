import {
  ImportBatchListSchema,
  ImportBatchSchema,
  ImportMappingSchema,
  ImportPlanSchema,
  ImportResultSchema,
} from '@hearth/contracts'
import { MAX_FILE_BYTES, operations } from '@hearth/engine'
import { type OperationRoute, operationRoute } from '../http/operation-route.ts'

/** The paths whose body carries a bank file, and may be as large as the largest file (base64 included). */
export const IMPORT_PATH = /^\/households\/[^/]+\/imports(\/preview)?$/
export const IMPORT_BODY_BYTES = Math.ceil((MAX_FILE_BYTES * 4) / 3) + 64 * 1024

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
  'IMPORT_CURRENCY_MISMATCH',
  'IMPORT_FILE_TOO_LARGE',
]
const body =
  "Body `{accountId, format: ofx|qfx|csv|camt053, content (the file as text) | contentBase64 (its bytes), encoding?: auto|utf-8|windows-1252|latin1, mapping?}` (see docs/api/imports.md). These two routes take bodies up to about 13.4 MiB (a 10 MiB file in base64), beyond the server's body limit for other routes."

/** Bank file imports: preview, commit, undo, the batches, and an account's saved CSV mapping. */
export const importRoutes: OperationRoute[] = [
  operationRoute(operations.imports.preview, {
    method: 'post',
    path: `${imports}/preview`,
    status: 200,
    tag,
    response: ImportPlanSchema,
    responseDescription: 'The plan; nothing changed.',
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
    notes: `${body} Plus \`id?\`, \`planDigest?\` (refused with 409 IMPORT_PLAN_CHANGED when the plan moved on since the preview), \`skipRefused?\` (import the readable rows of a file with refused rows; otherwise 400 IMPORT_ROWS_REFUSED listing their lines) and \`saveMapping?\`. One transaction: all of the batch or none of it.`,
    errors: {
      400: [...fileErrors, 'IMPORT_ROWS_REFUSED'],
      404: ['NOT_FOUND'],
      409: ['ID_ALREADY_EXISTS', 'IMPORT_PLAN_CHANGED'],
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
