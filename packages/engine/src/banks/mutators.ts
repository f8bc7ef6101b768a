import type { Transaction as Tx } from 'kysely'
import { IdArgsSchema } from '../catalog/fields.ts'
import type { Database } from '../database.ts'
import { conflict, EngineError, notFound, ownerOnly } from '../errors.ts'
import { parseCents } from '../imports/parse/statement.ts'
import { createAccount } from '../ledger/accounts/mutators.ts'
import type { LedgerHooks } from '../ledger/transactions/pipeline.ts'
import type { HouseholdContext } from '../mutator/context.ts'
import { defineMutator } from '../mutator/define.ts'
import { parseArgs } from '../mutator/parse-args.ts'
import { applyRemoteAccount } from './apply.ts'
import { type BankConnection, isCurrencyCode, toBankConnection } from './model.ts'
import {
  CreateBankConnectionArgsSchema,
  LinkBankAccountArgsSchema,
  type RemoteAccount,
  SyncBankConnectionArgsSchema,
} from './schema.ts'
import type { BankConnectionRow, BankSyncResult } from './tables.ts'

/** The connection, or 404 when it is not this household's. */
export async function requireConnection(
  tx: Pick<Tx<Database>, 'selectFrom'>,
  householdId: string,
  id: string,
): Promise<BankConnectionRow> {
  const row = await tx
    .selectFrom('bank_connections')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('id', '=', id)
    .executeTakeFirst()
  if (!row) throw notFound('Bank connection', id)
  return row
}

/** The connection with its links, as the API shows it. */
export async function readConnection(
  tx: Pick<Tx<Database>, 'selectFrom'>,
  householdId: string,
  id: string,
): Promise<BankConnection> {
  const row = await requireConnection(tx, householdId, id)
  const links = await tx
    .selectFrom('bank_links')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('connection_id', '=', id)
    .orderBy('institution')
    .orderBy('name')
    .orderBy('remote_id')
    .execute()
  return toBankConnection(row, links)
}

/** Records the provider's remote accounts on a connection: new ones unlinked, known ones renamed. */
async function keepRemoteAccounts(
  tx: Tx<Database>,
  ctx: HouseholdContext,
  connectionId: string,
  accounts: readonly RemoteAccount[],
): Promise<void> {
  for (const a of accounts) {
    const balance = a.balance === null ? null : parseCents(a.balance)
    const values = {
      name: a.name.slice(0, 200) || a.id,
      institution: a.institution,
      currency: a.currency.slice(0, 200),
      ...(balance !== null && {
        balance_cents: balance,
        balance_at: a.balanceAt ? new Date(a.balanceAt * 1000) : ctx.now,
      }),
      updated_at: ctx.now,
    }
    await tx
      .insertInto('bank_links')
      .values({
        household_id: ctx.householdId,
        connection_id: connectionId,
        remote_id: a.id,
        account_id: null,
        created_at: ctx.now,
        ...values,
      })
      .onConflict((oc) => oc.columns(['household_id', 'connection_id', 'remote_id']).doUpdateSet(values))
      .execute()
  }
}

/**
 * Records a connection whose setup token the route has claimed: its sealed access credential
 * and the remote accounts the provider listed, none linked yet. A token the provider refused
 * (claimed before, or not valid) is a 409, after an Idempotency-Key replay had its chance.
 */
export const createBankConnection = defineMutator({
  audience: 'server',
  description: 'Connects a bank provider from a setup token and lists its accounts to link.',
  scope: 'write:accounts',
  args: CreateBankConnectionArgsSchema,
  async run(tx, args, ctx): Promise<BankConnection> {
    const earlier = await tx
      .selectFrom('bank_connections')
      .select(['household_id', 'id'])
      .where('setup_token_hash', '=', args.setupTokenHash)
      .executeTakeFirst()
    if (args.claimRefused !== undefined || args.accessSealed === null || earlier) {
      throw conflict(
        'BANK_SETUP_TOKEN_REFUSED',
        earlier
          ? 'This setup token was claimed already; each token connects once. Create a new one at the bridge.'
          : `The provider refused the setup token: ${args.claimRefused ?? 'no access was given'}. Create a new one at the bridge.`,
        earlier?.household_id === ctx.householdId ? { connectionId: earlier.id } : {},
      )
    }
    await tx
      .insertInto('bank_connections')
      .values({
        household_id: ctx.householdId,
        id: args.id,
        provider: args.provider,
        setup_token_hash: args.setupTokenHash,
        access_sealed: args.accessSealed,
        institutions: [...new Set(args.accounts.map((a) => a.institution).filter((i) => i !== null))],
        attention_reason: null,
        created_by: ctx.userId,
        created_at: ctx.now,
        updated_at: ctx.now,
      })
      .execute()
    await keepRemoteAccounts(tx, ctx, args.id, args.accounts)
    return readConnection(tx, ctx.householdId, args.id)
  },
})

/**
 * Links a remote account to a Hearth account in its currency (an existing one, or one made for
 * it), or unlinks it (`accountId: null`: its rows are ignored from then on, the rows already
 * imported stay). An account takes the rows of one remote account at most.
 */
export const linkBankAccount = defineMutator({
  audience: 'server',
  description: "Links a bank connection's remote account to an account, or unlinks it.",
  scope: 'write:accounts',
  args: LinkBankAccountArgsSchema,
  async run(tx, args, ctx): Promise<BankConnection> {
    await requireConnection(tx, ctx.householdId, args.id)
    const link = await tx
      .selectFrom('bank_links')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .where('connection_id', '=', args.id)
      .where('remote_id', '=', args.remoteId)
      .executeTakeFirst()
    if (!link) throw notFound('Remote account', args.remoteId)
    let accountId: string | null = args.accountId ?? null
    if (args.createAccount || accountId !== null) {
      if (!isCurrencyCode(link.currency)) {
        throw new EngineError(
          422,
          'BANK_CURRENCY_UNSUPPORTED',
          `The remote account's currency (${link.currency}) is not an ISO 4217 code; it cannot be linked.`,
        )
      }
    }
    if (args.createAccount) {
      const made = await createAccount.run(
        tx,
        parseArgs(createAccount.args, {
          id: args.createAccount.id,
          name: args.createAccount.name ?? link.name.slice(0, 100),
          type: args.createAccount.type ?? 'cash',
          currency: link.currency,
          bankFed: true,
        }),
        ctx,
      )
      accountId = made.id
    } else if (accountId !== null) {
      const account = await tx
        .selectFrom('accounts')
        .select(['id', 'currency', 'closed_at'])
        .where('household_id', '=', ctx.householdId)
        .where('id', '=', accountId)
        .where('deleted_at', 'is', null)
        .executeTakeFirst()
      if (!account) throw notFound('Account', accountId)
      if (account.currency !== link.currency) {
        throw new EngineError(
          422,
          'BANK_LINK_CURRENCY_MISMATCH',
          `Account ${accountId} is in ${account.currency}; the remote account is in ${link.currency}. Link an account in ${link.currency}, or create one.`,
          {
            errors: [
              {
                path: 'accountId',
                message: `Must be an account in ${link.currency}.`,
                code: 'currency_mismatch',
              },
            ],
          },
        )
      }
    }
    if (accountId !== null) {
      const taken = await tx
        .selectFrom('bank_links')
        .select(['connection_id', 'remote_id'])
        .where('household_id', '=', ctx.householdId)
        .where('account_id', '=', accountId)
        .executeTakeFirst()
      if (taken && !(taken.connection_id === args.id && taken.remote_id === args.remoteId)) {
        throw conflict(
          'BANK_ACCOUNT_ALREADY_LINKED',
          `Account ${accountId} already takes the rows of remote account ${taken.remote_id}; unlink that first.`,
          { connectionId: taken.connection_id, remoteId: taken.remote_id },
        )
      }
    }
    await tx
      .updateTable('bank_links')
      .set({ account_id: accountId, updated_at: ctx.now })
      .where('household_id', '=', ctx.householdId)
      .where('connection_id', '=', args.id)
      .where('remote_id', '=', args.remoteId)
      .execute()
    return readConnection(tx, ctx.householdId, args.id)
  },
})

/**
 * Disconnects: the access credential and the links are deleted; the rows already imported stay.
 * The member who connected it, or an owner. (SimpleFIN has no revoke call: the household
 * disables the token at the bridge, as docs/api/bank-connections.md says.)
 */
export const deleteBankConnection = defineMutator({
  audience: 'server',
  description: 'Disconnects a bank connection; the rows it imported stay.',
  scope: 'write:accounts',
  args: IdArgsSchema,
  async run(tx, args, ctx): Promise<null> {
    const row = await requireConnection(tx, ctx.householdId, args.id)
    if (row.created_by !== ctx.userId && ctx.role !== 'owner') throw ownerOnly()
    await tx
      .deleteFrom('bank_connections')
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .execute()
    return null
  },
})

/**
 * Applies what a sync fetched, in one transaction: each complete window's rows for every linked
 * account (a window the provider failed part way through never arrives here, so none is half
 * written), the balances, and the outcome. Access the provider refused marks the connection as
 * needing attention and tells the household's owners (`bankConnection.needsAttention`).
 */
export function defineSyncBankConnection(hooks: LedgerHooks) {
  return defineMutator({
    audience: 'server',
    description: "Brings a bank connection's new rows into its linked accounts.",
    scope: 'write:transactions',
    cost: 'expensive',
    args: SyncBankConnectionArgsSchema,
    async run(tx, args, ctx): Promise<BankConnection> {
      const row = await requireConnection(tx, ctx.householdId, args.id)
      const household = await tx
        .selectFrom('households')
        .select('time_zone')
        .where('id', '=', ctx.householdId)
        .executeTakeFirstOrThrow()
      const timeZone = household.time_zone ?? 'UTC'
      const perAccount = new Map<string, BankSyncResult['accounts'][number]>()
      const providerErrors: string[] = []
      let through = row.synced_through
      for (const window of args.windows) {
        providerErrors.push(...window.errors)
        await keepRemoteAccounts(tx, ctx, args.id, window.accounts)
        const links = await tx
          .selectFrom('bank_links')
          .selectAll()
          .where('household_id', '=', ctx.householdId)
          .where('connection_id', '=', args.id)
          .where('account_id', 'is not', null)
          .execute()
        for (const link of links) {
          const remote = window.accounts.find((a) => a.id === link.remote_id)
          if (!remote) continue
          const r = await applyRemoteAccount(
            tx,
            ctx,
            hooks,
            link as typeof link & { account_id: string },
            remote,
            window,
            `${args.syncId}:${window.start}`,
            timeZone,
          )
          const before = perAccount.get(link.remote_id)
          perAccount.set(
            link.remote_id,
            before
              ? {
                  ...r,
                  batchId: r.batchId ?? before.batchId,
                  created: before.created + r.created,
                  matched: before.matched + r.matched,
                  duplicate: before.duplicate + r.duplicate,
                  updated: before.updated + r.updated,
                  removed: before.removed + r.removed,
                  refused: [...before.refused, ...r.refused],
                }
              : r,
          )
        }
        const end = new Date(window.end * 1000)
        if (!through || end > through) through = end
      }
      const failure = args.failure
      const result: BankSyncResult = {
        syncId: args.syncId,
        at: ctx.now.toISOString(),
        outcome: failure === null ? 'synced' : args.windows.length > 0 ? 'partial' : 'failed',
        windows: args.windows.map((w) => ({
          start: new Date(w.start * 1000).toISOString(),
          end: new Date(w.end * 1000).toISOString(),
        })),
        accounts: [...perAccount.values()],
        providerErrors: [...new Set(providerErrors)],
        error: failure?.message ?? null,
      }
      const refusedAccess = failure?.kind === 'accessRefused'
      await tx
        .updateTable('bank_connections')
        .set({
          synced_through: through,
          sync_lease_until: null,
          last_sync: JSON.stringify(result),
          last_synced_at: ctx.now,
          updated_at: ctx.now,
          ...(refusedAccess
            ? { status: 'needsAttention', attention_reason: failure.message }
            : failure === null && { status: 'active', attention_reason: null }),
        })
        .where('household_id', '=', ctx.householdId)
        .where('id', '=', args.id)
        .execute()
      const connection = await readConnection(tx, ctx.householdId, args.id)
      if (refusedAccess && row.status !== 'needsAttention')
        ctx.emit('bankConnection.needsAttention', { connection, reason: failure.message })
      return connection
    },
  })
}
