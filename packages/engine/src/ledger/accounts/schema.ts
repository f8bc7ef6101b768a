import { z } from 'zod'
import { CentsSchema, CurrencySchema, DateSchema, NameSchema, UlidSchema } from '../../shared/schema.ts'
import { QueryBooleanSchema, RefIdSchema } from '../schema.ts'

export const AccountTypeSchema = z.enum(['cash', 'credit', 'loan', 'tracking'])

/** A free word for what kind of cash or credit account it is: checking, savings, wallet... */
const SubtypeSchema = z.string().trim().min(1).max(100)

/**
 * The bank's identity of the account as its files state it: `BANKID/ACCTID` from OFX and QFX
 * (the ACCTID alone for a card), the IBAN from camt.053. Stored folded (upper case, no spaces).
 */
export const BankAccountSchema = z
  .string()
  .transform((s) => s.replace(/\s+/g, '').toUpperCase())
  .pipe(z.string().min(1, 'Must not be blank.').max(100, 'Must be at most 100 characters.'))

/** POST H/accounts; `id` and `openingBalanceTransactionId` are supplied by the caller. */
export const CreateAccountArgsSchema = z.strictObject({
  id: UlidSchema,
  name: NameSchema,
  type: AccountTypeSchema,
  subtype: SubtypeSchema.nullish(),
  /** Defaults to the household's base currency. */
  currency: CurrencySchema.optional(),
  /** Display group; defaults to one per type (Cash, Credit, Loans, Tracking). */
  group: NameSchema.optional(),
  bankFed: z.boolean().optional(),
  /** A credit card's payment due day of the month. */
  paymentDueDay: z.number().int().min(1).max(31).nullish(),
  /** The bank's identity of the account; an import records it when left out. */
  bankAccount: BankAccountSchema.nullish(),
  openingBalanceCents: CentsSchema.optional(),
  /** Defaults to the caller's local day. */
  openingBalanceDate: DateSchema.optional(),
  /** Id of the opening-balance row; derived from `id` when omitted. */
  openingBalanceTransactionId: UlidSchema.optional(),
})
export type CreateAccountArgs = z.output<typeof CreateAccountArgsSchema>

/** GET H/accounts. */
export const ListAccountsArgsSchema = z.strictObject({ status: z.enum(['open', 'closed']).optional() })
export type ListAccountsArgs = z.output<typeof ListAccountsArgsSchema>

/** Path-only arguments: GET, reopen. */
export const AccountIdArgsSchema = z.strictObject({ id: RefIdSchema })
export type AccountIdArgs = z.output<typeof AccountIdArgsSchema>

/** PATCH H/accounts/{id}; type moves through convert, status through close and reopen. */
export const UpdateAccountArgsSchema = z.strictObject({
  id: RefIdSchema,
  name: NameSchema.optional(),
  subtype: SubtypeSchema.nullable().optional(),
  group: NameSchema.optional(),
  bankFed: z.boolean().optional(),
  paymentDueDay: z.number().int().min(1).max(31).nullish(),
  /** null forgets it; the next import records the file's. */
  bankAccount: BankAccountSchema.nullish(),
  /** Only while the account has no rows. */
  currency: CurrencySchema.optional(),
})
export type UpdateAccountArgs = z.output<typeof UpdateAccountArgsSchema>

/** POST H/accounts/reorder: the accounts in their new order; each keeps its group. */
export const ReorderAccountsArgsSchema = z.strictObject({
  accountIds: z.array(RefIdSchema).min(1).max(1000),
})
export type ReorderAccountsArgs = z.output<typeof ReorderAccountsArgsSchema>

/** DELETE H/accounts/{id}?force=true. */
export const DeleteAccountArgsSchema = z.strictObject({
  id: RefIdSchema,
  force: QueryBooleanSchema.optional(),
})
export type DeleteAccountArgs = z.output<typeof DeleteAccountArgsSchema>

/** POST H/accounts/{id}/reconcile; `adjustmentId` names the row booked for a gap. */
export const ReconcileAccountArgsSchema = z.strictObject({
  id: RefIdSchema,
  statementBalanceCents: CentsSchema,
  /** Defaults to the caller's local day. */
  statementDate: DateSchema.optional(),
  adjustmentId: UlidSchema,
})
export type ReconcileAccountArgs = z.output<typeof ReconcileAccountArgsSchema>

/** POST H/accounts/{id}/close; `adjustmentId` names the row booked for a remaining balance. */
export const CloseAccountArgsSchema = z.strictObject({
  id: RefIdSchema,
  adjustmentId: UlidSchema,
})
export type CloseAccountArgs = z.output<typeof CloseAccountArgsSchema>

/** POST H/accounts/{id}/convert. */
export const ConvertAccountArgsSchema = z.strictObject({
  id: RefIdSchema,
  type: AccountTypeSchema,
  subtype: SubtypeSchema.nullable().optional(),
})
export type ConvertAccountArgs = z.output<typeof ConvertAccountArgsSchema>

/** Longest balance history one request may ask for, in days. */
export const BALANCE_HISTORY_MAX_DAYS = 366

/** GET H/accounts/{id}/balance-history?fromDate&toDate. */
export const BalanceHistoryArgsSchema = z.strictObject({
  id: RefIdSchema,
  fromDate: DateSchema.optional(),
  toDate: DateSchema.optional(),
})
export type BalanceHistoryArgs = z.output<typeof BalanceHistoryArgsSchema>
