import { z } from 'zod'

const Instant = z.string().describe('ISO 8601 instant in UTC.')
const Cents = z.string().describe('Integer cents as a decimal string; negative, money out.')
const Counts = z
  .object({
    new: z.number().int(),
    duplicate: z.number().int(),
    matched: z.number().int(),
    ambiguous: z.number().int(),
    refused: z.number().int(),
  })
  .describe('How many rows of the file have each outcome.')

export const ImportPlanRowSchema = z
  .object({
    line: z.number().int().describe('The line of the file the row starts on, from 1.'),
    outcome: z
      .enum(['new', 'duplicate', 'matched', 'ambiguous', 'refused'])
      .describe(
        'new: imported as a new row; duplicate: its id is on the account already (or earlier in the file), skipped; matched: folded into its one hand-entered twin; ambiguous: several twins, imported and marked a possible duplicate; refused: unreadable, see reason.',
      ),
    date: z.string().nullable(),
    amountCents: Cents.nullable(),
    payee: z.string().nullable().describe('The payee text as the bank sent it.'),
    memo: z.string().nullable(),
    importedId: z.string().nullable().describe('The FITID or entry reference, else a fingerprint `fp:…`.'),
    matchedTransactionId: z.string().optional(),
    candidateIds: z.array(z.string()).optional(),
    duplicateOf: z.string().nullable().optional(),
    reason: z.string().optional(),
  })
  .meta({ id: 'ImportPlanRow' })

export const ImportBankAccountSchema = z
  .object({
    status: z
      .enum(['none', 'matches', 'new', 'unknown', 'otherAccount'])
      .describe(
        "none: the file states no bank account (CSV); matches: the account's recorded one; new: the account records none and no other account holds it (the commit records it); unknown: the account records another one and no account holds the file's; otherAccount: another account records it. A commit of unknown or otherAccount is refused with 409 IMPORT_ACCOUNT_MISMATCH unless acceptBankAccount.",
      ),
    file: z
      .string()
      .nullable()
      .describe(
        'As the file states it: OFX/QFX `BANKID/ACCTID` (a card: ACCTID), camt.053 IBAN; upper case.',
      ),
    account: z.string().nullable().describe("The chosen account's recorded bank account."),
    otherAccountId: z
      .string()
      .nullable()
      .describe('The account that records the file’s bank account, if another.'),
    message: z.string(),
  })
  .meta({ id: 'ImportBankAccount', description: "The file's bank account beside the chosen account's." })

export const ImportPlanSchema = z
  .object({
    accountId: z.string(),
    format: z.enum(['ofx', 'csv', 'camt053']),
    currency: z.string(),
    rows: z.array(ImportPlanRowSchema),
    counts: Counts,
    fileLedgerBalanceCents: Cents.nullable().describe(
      'The balance the file states (OFX LEDGERBAL, camt.053 CLBD).',
    ),
    fileLedgerBalanceDate: z.string().nullable(),
    bankAccount: ImportBankAccountSchema,
    digest: z
      .string()
      .describe('Give it to the commit as planDigest: a plan that moved on since is refused (409).'),
  })
  .meta({ id: 'ImportPlan', description: 'What an import would do with each row; nothing changed.' })

export const ImportBatchSchema = z
  .object({
    id: z.string(),
    accountId: z.string(),
    format: z.string(),
    transactionIds: z.array(z.string()).describe('Rows the import created that stand on their own.'),
    matched: z
      .array(z.object({ transactionId: z.string(), matchedTransactionId: z.string() }))
      .describe('Bank rows folded into their hand-entered twins.'),
    createdCount: z.number().int(),
    matchedCount: z.number().int(),
    duplicateCount: z.number().int(),
    refusedCount: z.number().int(),
    fileLedgerBalanceCents: Cents.nullable(),
    createdAt: Instant,
    undoneAt: Instant.nullable(),
  })
  .meta({ id: 'ImportBatch' })

export const ImportBatchListSchema = z
  .object({ items: z.array(ImportBatchSchema) })
  .meta({ id: 'ImportBatchList' })

export const ImportResultSchema = z
  .object({
    batch: ImportBatchSchema,
    counts: Counts,
    fileLedgerBalanceCents: Cents.nullable().describe('The balance the file states.'),
    accountBalanceCents: Cents.describe(
      "The account's balance after the import, to compare with the file's.",
    ),
    bankAccount: ImportBankAccountSchema.describe(
      "The file's bank account as the commit found it (new and an accepted unknown were recorded on the account).",
    ),
  })
  .meta({ id: 'ImportResult' })

export const ImportMappingSchema = z
  .object({
    accountId: z.string(),
    mapping: z
      .record(z.string(), z.unknown())
      .describe('The CSV mapping: columns, dateFormat, decimal, invert, delimiter, header, headerLine.'),
  })
  .meta({ id: 'ImportMapping' })
