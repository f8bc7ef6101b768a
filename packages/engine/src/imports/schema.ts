import { z } from 'zod'
import { PathIdSchema } from '../catalog/fields.ts'
import { RefIdSchema } from '../ledger/schema.ts'
import { UlidSchema } from '../shared/schema.ts'
import { parseDatePattern } from './parse/csv.ts'
import { IMPORT_ENCODINGS, IMPORT_FORMATS } from './parse/index.ts'

const Column = z.string().min(1).max(200)

/** Which CSV column holds what, and how to read it; every field optional (the header suggests the rest). */
export const CsvMappingSchema = z
  .strictObject({
    date: Column.optional(),
    amount: Column.optional(),
    debit: Column.optional(),
    credit: Column.optional(),
    payee: Column.optional(),
    memo: Column.optional(),
    externalId: Column.optional(),
    /** A day pattern: DD, MM and YY or YYYY, each once, joined by one of . / - or a space, or by none. */
    dateFormat: z
      .string()
      .max(12)
      .refine((p) => parseDatePattern(p) !== null, {
        error:
          'Must be a day pattern: DD, MM and YY or YYYY, each once, joined by . / - or a space (the same twice) or by nothing, e.g. DD.MM.YY, MM/DD/YYYY, YYYYMMDD.',
      })
      .optional(),
    decimal: z.enum(['.', ','], { error: 'Must be . or ,' }).optional(),
    invert: z.boolean().optional(),
    delimiter: z.enum([',', ';', '\t'], { error: 'Must be , or ; or a tab.' }).optional(),
    header: z.boolean().optional(),
    /** The file's line (1-based, blank lines counted) that names the columns; lines above it are skipped. */
    headerLine: z.number().int().min(1).max(1_000_000).optional(),
  })
  .refine((m) => m.headerLine === undefined || m.header !== false, {
    message: 'A file without a header (header: false) has no headerLine.',
    path: ['headerLine'],
  })

/** A bank file as text (`content`) or bytes (`contentBase64` in an `encoding`), in one format. */
const FileFields = {
  accountId: RefIdSchema,
  format: z.enum(IMPORT_FORMATS, { error: `Must be one of: ${IMPORT_FORMATS.join(', ')}.` }),
  // No length here: a file over the limit is IMPORT_FILE_TOO_LARGE (docs/errors.md), from the
  // reader; the import routes' body limit bounds what arrives at all.
  content: z.string().optional(),
  contentBase64: z.string().optional(),
  encoding: z.enum(IMPORT_ENCODINGS, { error: `Must be one of: ${IMPORT_ENCODINGS.join(', ')}.` }).optional(),
  /** CSV only; left out, the account's saved mapping, then the header's suggestion. */
  mapping: CsvMappingSchema.optional(),
}

const oneContent = (a: { content?: string; contentBase64?: string }) =>
  (a.content === undefined) !== (a.contentBase64 === undefined)
const ONE_CONTENT = {
  message: 'Send the file as content (text) or contentBase64 (bytes), one of them.',
  path: ['content'],
}

/** POST H/imports/preview: a file to plan against an account; nothing changes. */
export const PreviewImportArgsSchema = z.strictObject(FileFields).refine(oneContent, ONE_CONTENT)
export type PreviewImportArgs = z.output<typeof PreviewImportArgsSchema>

/** POST H/imports: commit a file's plan as one batch. */
export const CommitImportArgsSchema = z
  .strictObject({
    ...FileFields,
    /** The batch's id; the route fills it when left out. */
    id: UlidSchema,
    /** The preview's digest: the commit is refused (409) if the plan changed since. */
    planDigest: z.string().max(64).optional(),
    /** Import the readable rows of a file some of whose rows were refused (default: refuse the file). */
    skipRefused: z.boolean().optional(),
    /**
     * Import a file whose bank account is not the account's (preview's bankAccount.status
     * `unknown` or `otherAccount`); an `unknown` one is then recorded on the account.
     */
    acceptBankAccount: z.boolean().optional(),
    /** Keep this CSV mapping for the account's next files. */
    saveMapping: z.boolean().optional(),
  })
  .refine(oneContent, ONE_CONTENT)
export type CommitImportArgs = z.output<typeof CommitImportArgsSchema>

/** An import batch named by the path. */
export const ImportIdArgsSchema = z.strictObject({ id: PathIdSchema })

/** GET H/imports: optionally one account's. */
export const ListImportsArgsSchema = z.strictObject({ accountId: RefIdSchema.optional() })

/** PUT H/accounts/{accountId}/import-mapping. */
export const SaveImportMappingArgsSchema = z.strictObject({ id: PathIdSchema, mapping: CsvMappingSchema })
