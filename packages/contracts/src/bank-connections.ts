import { z } from 'zod'

const Instant = z.string().describe('ISO 8601 instant in UTC.')
const Cents = z
  .string()
  .regex(/^-?\d+$/)
  .describe('Integer cents as a decimal string.')

/** A remote account of a connection, and where its rows go. */
export const BankLinkSchema = z
  .object({
    remoteId: z.string().describe("The provider's id of the account."),
    name: z.string(),
    institution: z.string().nullable(),
    currency: z.string().describe('ISO 4217, or a URL naming a custom currency (never linkable).'),
    accountId: z.string().nullable().describe('The Hearth account its rows go to; null: listed and ignored.'),
    balanceCents: Cents.nullable().describe('The balance the bank last reported.'),
    balanceAt: Instant.nullable(),
  })
  .meta({ id: 'BankLink' })

/** One linked account's share of a sync. */
export const BankSyncAccountResultSchema = z
  .object({
    remoteId: z.string(),
    accountId: z.string(),
    batchId: z
      .string()
      .nullable()
      .describe('The import batch of the rows it created (undo it as an import).'),
    created: z.number().int(),
    matched: z.number().int().describe('Rows folded into hand-entered twins.'),
    duplicate: z.number().int(),
    updated: z.number().int().describe('Pending rows the bank since posted or changed, updated in place.'),
    removed: z.number().int().describe('Pending rows the bank reports no more, taken off.'),
    refused: z.array(z.object({ id: z.string(), reason: z.string() })),
    bankBalanceCents: Cents.nullable(),
    accountBalanceCents: Cents.describe("The account's cleared balance after the sync."),
    differenceCents: Cents.nullable().describe('The bank balance less the cleared balance.'),
  })
  .meta({ id: 'BankSyncAccountResult' })

/** What the last sync did. */
export const BankSyncResultSchema = z
  .object({
    syncId: z.string(),
    at: Instant,
    outcome: z.enum(['synced', 'partial', 'failed']),
    windows: z.array(z.object({ start: Instant, end: Instant })),
    accounts: z.array(BankSyncAccountResultSchema),
    providerErrors: z.array(z.string()).describe("The provider's own messages, to show as they came."),
    error: z.string().nullable(),
  })
  .meta({ id: 'BankSyncResult' })

/** A bank connection as every read shows it: never its access credential. */
export const BankConnectionSchema = z
  .object({
    id: z.string(),
    provider: z.enum(['simplefin']),
    institutions: z.array(z.string()),
    status: z.enum(['active', 'needsAttention']),
    attentionReason: z.string().nullable(),
    syncedThrough: Instant.nullable(),
    lastSyncedAt: Instant.nullable(),
    lastSync: BankSyncResultSchema.nullable(),
    links: z.array(BankLinkSchema),
    createdBy: z.string(),
    createdAt: Instant,
    updatedAt: Instant,
  })
  .meta({ id: 'BankConnection' })

export const BankConnectionListSchema = z
  .object({ items: z.array(BankConnectionSchema) })
  .meta({ id: 'BankConnectionList' })

/** The body of a connect. */
export const CreateBankConnectionBodySchema = z
  .strictObject({
    setupToken: z
      .string()
      .min(1)
      .max(4000)
      .describe('The SimpleFIN setup token the household made at its bridge.'),
    id: z.string().optional().describe('The connection id (a ULID); made when left out.'),
  })
  .meta({ id: 'CreateBankConnection' })

/** The body of a link. */
export const LinkBankAccountBodySchema = z
  .strictObject({
    accountId: z
      .string()
      .nullable()
      .optional()
      .describe('An account in the remote currency, or null to unlink.'),
    createAccount: z
      .strictObject({
        id: z.string().optional(),
        name: z.string().optional(),
        type: z.enum(['cash', 'credit', 'loan', 'tracking']).optional(),
      })
      .optional()
      .describe('Make a new account in the remote currency instead.'),
  })
  .meta({ id: 'LinkBankAccount' })
