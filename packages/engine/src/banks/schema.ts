import { z } from 'zod'
import { PathIdSchema } from '../catalog/fields.ts'
import { AccountTypeSchema } from '../ledger/accounts/schema.ts'
import { RefIdSchema } from '../ledger/schema.ts'
import { NameSchema, UlidSchema } from '../shared/schema.ts'

const Text = (max: number) => z.string().max(max)
/** An instant as the provider states it: seconds since the epoch. */
const UnixSeconds = z.number().int().min(0).max(32_503_680_000)

/** One transaction as a provider reports it, before it is planned against an account. */
export const RemoteTransactionSchema = z.strictObject({
  id: Text(200).min(1),
  /** When the bank booked it; null while it is pending. */
  postedAt: UnixSeconds.nullable(),
  /** When it happened, when the bank says. */
  transactedAt: UnixSeconds.nullable(),
  /** The amount as the provider wrote it (a decimal string, negative for money out). */
  amount: Text(40),
  description: Text(1000),
  payee: Text(500).nullable(),
  memo: Text(1000).nullable(),
  pending: z.boolean(),
})
export type RemoteTransaction = z.output<typeof RemoteTransactionSchema>

/** One account at the provider, with the transactions of a window (none when only balances were asked). */
export const RemoteAccountSchema = z.strictObject({
  id: Text(200).min(1),
  name: Text(200),
  institution: Text(200).nullable(),
  currency: Text(200),
  /** The balance as the provider wrote it, and when it held. */
  balance: Text(40).nullable(),
  balanceAt: UnixSeconds.nullable(),
  transactions: z.array(RemoteTransactionSchema).max(100_000),
})
export type RemoteAccount = z.output<typeof RemoteAccountSchema>

/** What the provider answered for one window [start, end) of time. */
export const FetchedWindowSchema = z.strictObject({
  start: UnixSeconds,
  end: UnixSeconds,
  accounts: z.array(RemoteAccountSchema).max(500),
  errors: z.array(Text(2000)).max(100),
})
export type FetchedWindow = z.output<typeof FetchedWindowSchema>

/** Why a sync could not fetch (all) its windows: access refused, or the provider unavailable. */
export const FetchFailureSchema = z.strictObject({
  kind: z.enum(['accessRefused', 'unavailable']),
  message: Text(2000),
})

/** POST H/bank-connections, as the route makes it once the setup token is claimed. */
export const CreateBankConnectionArgsSchema = z.strictObject({
  id: UlidSchema,
  provider: z.enum(['simplefin']),
  setupTokenHash: z.string().regex(/^[0-9a-f]{64}$/),
  /** The access credential, sealed by the server; null when the provider refused the claim. */
  accessSealed: z.string().max(4000).nullable(),
  /** Why the provider refused the claim, when it did. */
  claimRefused: Text(2000).optional(),
  accounts: z.array(RemoteAccountSchema).max(500),
  errors: z.array(Text(2000)).max(100),
})

/** PUT H/bank-connections/{id}/links/{remoteId}: where a remote account's rows go. */
export const LinkBankAccountArgsSchema = z
  .strictObject({
    id: PathIdSchema,
    remoteId: Text(200).min(1),
    /** An existing account in the remote account's currency; null unlinks. */
    accountId: RefIdSchema.nullable().optional(),
    /** A new account for the remote one, in its currency. */
    createAccount: z
      .strictObject({
        id: UlidSchema,
        name: NameSchema.optional(),
        type: AccountTypeSchema.optional(),
      })
      .optional(),
  })
  .refine((a) => (a.accountId === undefined) !== (a.createAccount === undefined), {
    message: 'Give accountId (an account, or null to unlink) or createAccount, one of them.',
    path: ['accountId'],
  })
export type LinkBankAccountArgs = z.output<typeof LinkBankAccountArgsSchema>

/** POST H/bank-connections/{id}/sync, as the route or the job makes it once the windows are fetched. */
export const SyncBankConnectionArgsSchema = z.strictObject({
  id: PathIdSchema,
  syncId: UlidSchema,
  windows: z.array(FetchedWindowSchema).max(100),
  failure: FetchFailureSchema.nullable(),
})
export type SyncBankConnectionArgs = z.output<typeof SyncBankConnectionArgsSchema>
