import { z } from 'zod'

const Instant = z.string().describe('ISO 8601 instant in UTC.')
const Day = z.string().describe('A calendar day, YYYY-MM-DD.')
const Cents = z.string().describe('Integer cents as a decimal string.')
const Count = z.number().int().min(0)

export const AccountSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(['cash', 'credit', 'loan', 'tracking']),
    subtype: z.string().nullable().describe('A free word such as checking, savings or wallet.'),
    currency: z.string().describe('ISO 4217 code.'),
    status: z.enum(['open', 'closed']),
    group: z.string().describe('Display group; lists run by group, then position.'),
    position: z.number().int().describe('Manual position within the group.'),
    bankFed: z.boolean().describe('True once the account has received an imported row, or when set.'),
    paymentDueDay: z
      .number()
      .int()
      .nullable()
      .describe(
        "A credit card's payment due day of the month (the month's last day when shorter); upcoming lists it.",
      ),
    bankAccount: z
      .string()
      .nullable()
      .describe(
        "The bank's identity of the account as its files state it (OFX/QFX `BANKID/ACCTID`, the ACCTID alone for a card; camt.053 IBAN), upper case without spaces. Recorded by the first import that states one, or set; imports check files against it.",
      ),
    onBudget: z.boolean().describe('Cash and credit accounts are on budget; loan and tracking are not.'),
    balanceCents: Cents,
    clearedBalanceCents: Cents,
    unclearedBalanceCents: Cents,
    closedAt: Instant.nullable(),
    createdAt: Instant,
    updatedAt: Instant,
  })
  .meta({ id: 'Account' })

export const AccountListSchema = z
  .object({ items: z.array(AccountSchema) })
  .meta({ id: 'AccountList', description: 'Ordered by group (code-point order), then position, then id.' })

export const BalancePointSchema = z
  .object({ date: Day, balanceCents: Cents, clearedBalanceCents: Cents })
  .meta({ id: 'BalancePoint', description: "The account's balances at the end of one day." })

export const BalanceHistorySchema = z
  .object({
    accountId: z.string(),
    fromDate: Day,
    toDate: Day,
    points: z.array(BalancePointSchema).describe('One point per day of the window, oldest first.'),
  })
  .meta({ id: 'BalanceHistory' })

export const SplitSchema = z
  .object({
    id: z.string(),
    amountCents: Cents,
    categoryId: z.string().nullable(),
    payeeId: z.string().nullable(),
    memo: z.string().nullable(),
  })
  .meta({ id: 'Split' })

export const TransactionSchema = z
  .object({
    id: z.string(),
    accountId: z.string(),
    date: Day,
    amountCents: Cents.describe('Integer cents as a decimal string; negative means money out.'),
    payeeId: z.string().nullable(),
    categoryId: z.string().nullable(),
    memo: z.string().nullable(),
    status: z.enum(['pending', 'cleared', 'reconciled']),
    source: z.enum(['manual', 'imported', 'ai', 'recurring', 'split']),
    kind: z
      .enum(['normal', 'opening_balance', 'adjustment'])
      .describe('System rows (opening balances, reconcile and close adjustments) are not normal.'),
    importedId: z.string().nullable().describe("The bank's own id for an imported row."),
    externalId: z
      .string()
      .nullable()
      .describe(
        'On a booked recurrence occurrence: `recurrence:<recurrenceId>:<date>`, unique in the household.',
      ),
    importedPayee: z
      .string()
      .nullable()
      .describe(
        'The payee text the bank sent with an imported row, kept as it came beside the payee the row ends up with; null on other rows.',
      ),
    transferGroupId: z.string().nullable().describe('Shared by the two legs of a transfer.'),
    needsReview: z.boolean(),
    possibleDuplicate: z
      .boolean()
      .describe('Left on a bank row that had several hand-entered twins; cleared by dismiss-match.'),
    matchedTransactionId: z
      .string()
      .nullable()
      .describe('On a row that survived a match: the bank row folded into it.'),
    suggestedCategoryId: z.string().nullable(),
    suggestionConfidence: z.number().nullable(),
    suggestionReason: z.string().nullable(),
    splits: z.array(SplitSchema).describe('Empty for a plain row; otherwise the parts, summing to the row.'),
    tagIds: z.array(z.string()),
    flagIds: z.array(z.string()),
    createdAt: Instant,
    updatedAt: Instant,
  })
  .meta({ id: 'Transaction' })

export const TransactionPageSchema = z
  .object({
    items: z.array(TransactionSchema),
    nextCursor: z.string().nullable().describe('Send as `cursor` for the next page; null at the end.'),
  })
  .meta({ id: 'TransactionPage', description: 'Newest first: date descending, then id descending.' })

export const TransactionListSchema = z
  .object({ items: z.array(TransactionSchema) })
  .meta({ id: 'TransactionList', description: 'Candidates, nearest in date first, at most 50.' })

export const ReconcileResultSchema = z
  .object({
    account: AccountSchema,
    adjustment: TransactionSchema.nullable().describe(
      'The row booked for a gap, or null when there was none.',
    ),
    reconciledCount: Count.describe('Cleared rows on or before the statement date that became reconciled.'),
  })
  .meta({ id: 'ReconcileResult' })

export const CloseAccountResultSchema = z
  .object({
    account: AccountSchema,
    adjustment: TransactionSchema.nullable().describe(
      'The row that took a remaining balance to zero, or null.',
    ),
  })
  .meta({ id: 'CloseAccountResult' })

export const TransferResultSchema = z
  .object({
    transferGroupId: z.string(),
    from: TransactionSchema.describe('The leg that takes the money out (negative amount).'),
    to: TransactionSchema.describe('The leg that brings the money in (positive amount).'),
  })
  .meta({ id: 'TransferResult' })

export const LinkTransferResultSchema = z
  .object({ transferGroupId: z.string(), transactions: z.array(TransactionSchema) })
  .meta({ id: 'LinkTransferResult' })

export const UnlinkTransferResultSchema = z
  .object({ transactions: z.array(TransactionSchema) })
  .meta({ id: 'UnlinkTransferResult' })

export const BulkCreateResultSchema = z
  .object({
    items: z
      .array(TransactionSchema)
      .describe('Rows created and visible, in request order; bank rows folded into a twin are not listed.'),
    createdCount: Count,
    skippedCount: Count,
    matchedCount: Count,
    skipped: z
      .array(z.object({ index: Count, importedId: z.string() }))
      .describe('Rows whose importedId the account already holds, or that repeat an earlier row.'),
    matched: z
      .array(z.object({ index: Count, transactionId: z.string(), matchedTransactionId: z.string() }))
      .describe('Bank rows folded into their one hand-entered twin.'),
  })
  .meta({ id: 'BulkCreateResult' })

export const BulkUpdateResultSchema = z
  .object({ count: Count.describe('Rows the patch was applied to.') })
  .meta({ id: 'BulkUpdateResult' })

export const UnmatchResultSchema = z
  .object({
    transactions: z
      .array(TransactionSchema)
      .describe('The hand-entered row with its old date and status, then the bank row, back on its own.'),
  })
  .meta({ id: 'UnmatchResult' })

const SummaryTotals = {
  moneyInCents: Cents.describe('Integer cents as a decimal string: the sum of inflows.'),
  moneyOutCents: Cents.describe(
    'Integer cents as a decimal string: the sum of outflows, as a positive magnitude.',
  ),
  count: Count,
}

export const DailySummarySchema = z
  .object({
    baseCurrency: z.string(),
    fromDate: Day,
    toDate: Day,
    days: z
      .array(z.object({ date: Day, ...SummaryTotals }))
      .describe(
        'One entry per day, oldest first, converted to the base currency; `count` also counts rows in unconverted currencies.',
      ),
    totals: z.object(SummaryTotals).describe('The window, converted to the base currency.'),
    byCurrency: z
      .array(
        z.object({
          currency: z.string(),
          ...SummaryTotals,
          rate: z
            .string()
            .nullable()
            .describe('The rate to the base currency used, or null when there is none.'),
          converted: z.boolean(),
        }),
      )
      .describe('Face-value totals per account currency, by currency code.'),
    unconvertedCurrencies: z
      .array(z.string())
      .describe(
        'Currencies with no rate to the base currency: left out of the converted figures, never guessed.',
      ),
  })
  .meta({ id: 'DailySummary' })

export const StalePendingCountSchema = z
  .object({
    count: Count,
    days: Count.describe('The threshold used.'),
    asOf: Day.describe("The caller's local day the age was measured from."),
  })
  .meta({ id: 'StalePendingCount' })

export const ExchangeRateSchema = z
  .object({
    fromCurrency: z.string(),
    toCurrency: z.string(),
    rate: z
      .string()
      .describe('How many units of toCurrency one fromCurrency buys, as an exact decimal string.'),
    createdAt: Instant,
    updatedAt: Instant,
  })
  .meta({ id: 'ExchangeRate' })

export const ExchangeRateListSchema = z
  .object({ items: z.array(ExchangeRateSchema) })
  .meta({ id: 'ExchangeRateList', description: 'Ordered by fromCurrency, then toCurrency.' })
