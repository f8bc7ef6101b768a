import {
  BankConnectionListSchema,
  BankConnectionSchema,
  CreateBankConnectionBodySchema,
  LinkBankAccountBodySchema,
} from '@hearth/contracts'
import { EngineError, newUlid, operations, parseArgs, type Store, UlidSchema } from '@hearth/engine'
import { z } from 'zod'
import type { BankSyncSettings } from '../banks/bank-sync.ts'
import { claimSync, fetchWindows, openAccess } from '../banks/bank-sync.ts'
import { claimUrlOf, SetupTokenError, setupTokenHash } from '../banks/simplefin.ts'
import {
  type OperationRoute,
  operationRoute,
  type RouteInput,
  unknownFields,
} from '../http/operation-route.ts'

const tag = 'Bank connections'
/** Sync now takes no fields. */
const NoBody = z.strictObject({}).meta({ id: 'SyncBankConnection' })
const UlidArgs = z.strictObject({ id: UlidSchema })
const PathId = z.strictObject({ id: z.string().min(1).max(64) })
const all = '/households/{householdId}/bank-connections'
const one = `${all}/{id}`

/** What the bank connection routes need from the server. */
export interface BankRouteOptions {
  store: Store
  settings: BankSyncSettings
}

/** These routes take no query: an unknown parameter is refused by name, as every route does. */
function noQuery(input: RouteInput): void {
  const keys = Object.keys(input.query)
  if (keys.length > 0) throw unknownFields(keys)
}

/** The body's fields, with those the path or the server sets refused rather than overwritten. */
function given(input: RouteInput, made: Record<string, unknown>): Record<string, unknown> {
  noQuery(input)
  const fields = { ...(input.body as Record<string, unknown>) }
  const clash = Object.keys(fields).filter((k) => Object.hasOwn(made, k))
  if (clash.length > 0) throw unknownFields(clash, 'Unknown field: the server or the path sets it.')
  return { ...fields, ...made }
}

function providerUnavailable(detail: string): EngineError {
  return new EngineError(
    502,
    'BANK_PROVIDER_UNAVAILABLE',
    `The bank provider could not be reached: ${detail}`,
  )
}

/** A URL the guard refuses, named for bank connections. */
function asBankRefusal(error: unknown): unknown {
  if (error instanceof EngineError && error.code === 'WEBHOOK_URL_REFUSED')
    return new EngineError(422, 'BANK_URL_REFUSED', error.message)
  return error
}

/** Bank connections: connect from a setup token, list, link, sync now, disconnect. */
export function bankConnectionRoutes({ store, settings }: BankRouteOptions): OperationRoute[] {
  const { provider, box } = settings
  return [
    operationRoute(operations.bankConnections.list, {
      method: 'get',
      path: all,
      status: 200,
      tag,
      response: BankConnectionListSchema,
      responseDescription: 'The connections, oldest first, without credentials.',
      present: (items) => ({ items }),
    }),
    operationRoute(operations.bankConnections.get, {
      method: 'get',
      path: one,
      status: 200,
      tag,
      response: BankConnectionSchema,
      responseDescription: 'The connection, its remote accounts and its last sync.',
    }),
    operationRoute(operations.bankConnections.create, {
      method: 'post',
      path: all,
      status: 201,
      tag,
      input: CreateBankConnectionBodySchema,
      response: BankConnectionSchema,
      responseDescription: 'The new connection with its remote accounts, none linked yet.',
      notes:
        'Claims the SimpleFIN setup token once (400 `BANK_SETUP_TOKEN_INVALID` when it is not one, 409 `BANK_SETUP_TOKEN_REFUSED` when the bridge refuses it or it was claimed before), ' +
        'keeps the access URL sealed and lists the accounts it reaches. The claim and access URLs must reach public addresses (422 `BANK_URL_REFUSED`); ' +
        'a bridge that cannot be reached is 502 `BANK_PROVIDER_UNAVAILABLE`. See docs/api/bank-connections.md.',
      errors: {
        400: ['BANK_SETUP_TOKEN_INVALID'],
        409: ['BANK_SETUP_TOKEN_REFUSED'],
        422: ['BANK_URL_REFUSED'],
      },
      async prepare(input) {
        noQuery(input)
        // The body's shape first, so a field of a wrong type is named before the token is read.
        const { setupToken, id } = parseArgs(CreateBankConnectionBodySchema, input.body ?? {})
        if (id !== undefined) parseArgs(UlidArgs, { id })
        try {
          claimUrlOf(setupToken)
        } catch (error) {
          if (!(error instanceof SetupTokenError)) throw error
          throw new EngineError(400, 'BANK_SETUP_TOKEN_INVALID', error.message, {
            errors: [{ path: 'setupToken', message: error.message, code: 'invalid' }],
          })
        }
        const base = {
          id: id ?? newUlid(),
          provider: provider.name,
          setupTokenHash: setupTokenHash(setupToken),
        }
        let claimed: Awaited<ReturnType<typeof provider.connect>>
        try {
          claimed = await provider.connect(setupToken)
        } catch (error) {
          const refusal = asBankRefusal(error)
          if (refusal instanceof EngineError) throw refusal
          throw providerUnavailable(error instanceof Error ? error.message : String(error))
        }
        // A refused claim is the mutation's to answer, after an Idempotency-Key replay had its turn.
        if (!claimed.ok)
          return {
            args: { ...base, accessSealed: null, claimRefused: claimed.refused, accounts: [], errors: [] },
          }
        const listed = await provider.listAccounts(claimed.access)
        return {
          args: {
            ...base,
            accessSealed: box.seal(claimed.access),
            accounts: listed.ok ? listed.value.accounts : [],
            errors: listed.ok ? listed.value.errors : [listed.message],
          },
        }
      },
    }),
    operationRoute(operations.bankConnections.link, {
      method: 'put',
      path: `${one}/links/{remoteId}`,
      status: 200,
      tag,
      params: { id: 'id', remoteId: 'remoteId' },
      input: LinkBankAccountBodySchema,
      response: BankConnectionSchema,
      responseDescription: 'The connection after the change.',
      notes:
        'Links a remote account to an account in its currency (`accountId`), makes one for it (`createAccount`), or unlinks it (`accountId: null`: its rows are ignored from then on). ' +
        '422 `BANK_LINK_CURRENCY_MISMATCH` for an account in another currency, `BANK_CURRENCY_UNSUPPORTED` for a custom currency; 409 `BANK_ACCOUNT_ALREADY_LINKED` when the account takes another remote account’s rows.',
      errors: {
        409: ['BANK_ACCOUNT_ALREADY_LINKED'],
        422: ['BANK_LINK_CURRENCY_MISMATCH', 'BANK_CURRENCY_UNSUPPORTED'],
      },
      prepare(input) {
        const body = (input.body ?? {}) as { createAccount?: Record<string, unknown> }
        const args = given(input, { id: input.params.id, remoteId: input.params.remoteId })
        if (body.createAccount && typeof body.createAccount === 'object')
          args.createAccount = { id: newUlid(), ...body.createAccount }
        return { args }
      },
    }),
    operationRoute(operations.bankConnections.sync, {
      method: 'post',
      path: `${one}/sync`,
      status: 200,
      tag,
      optionalBody: true,
      input: NoBody,
      response: BankConnectionSchema,
      responseDescription: 'The connection with this sync as its last one.',
      notes:
        'Fetches what is new since the last sync, in windows of at most 90 days, and applies each whole window to the linked accounts in one transaction. ' +
        'The answer is 200 whatever the bank said: `lastSync.outcome` is `synced`, `partial` (some windows applied, then the provider failed) or `failed`, with the reason in `lastSync.error` and the provider’s own messages in `lastSync.providerErrors`; ' +
        'an access the bridge refuses marks the connection `needsAttention`. A sync sooner than the server’s least gap after the last one is 429 `BANK_SYNC_TOO_SOON` (the bridge allows about 24 requests a day).',
      errors: { 409: ['BANK_SYNC_IN_PROGRESS'], 429: ['BANK_SYNC_TOO_SOON'] },
      async prepare(input) {
        noQuery(input)
        parseArgs(NoBody, input.body ?? {})
        // The id is read from the store before the operation parses it: text it cannot hold is a 400 here.
        const { id } = parseArgs(PathId, { id: input.params.id })
        const syncId = newUlid()
        const row = await store.db
          .selectFrom('bank_connections')
          .select(['last_synced_at'])
          .where('household_id', '=', input.householdId!)
          .where('id', '=', id)
          .executeTakeFirst()
        // An unknown connection: the mutation answers 404, as it would for any id.
        if (!row) return { args: { id, syncId, windows: [], failure: null } }
        const now = new Date()
        const wait = row.last_synced_at ? row.last_synced_at.getTime() + settings.minGapMs - now.getTime() : 0
        if (wait > 0)
          throw new EngineError(
            429,
            'BANK_SYNC_TOO_SOON',
            `This connection synced moments ago; sync it again in ${Math.ceil(wait / 1000)} s (the bridge allows about 24 requests a day).`,
            { extra: { retryAfterSeconds: Math.ceil(wait / 1000) } },
          )
        const claimed = await claimSync(store, input.householdId!, id, now)
        if (!claimed)
          throw new EngineError(
            409,
            'BANK_SYNC_IN_PROGRESS',
            'A sync of this connection is under way; its result will be its last sync.',
          )
        const opened = openAccess(box, claimed.access_sealed)
        const fetched = opened.ok
          ? await fetchWindows(opened.access, claimed.synced_through, now, settings)
          : { windows: [], failure: opened.failure }
        return { args: { id, syncId, ...fetched } }
      },
    }),
    operationRoute(operations.bankConnections.delete, {
      method: 'delete',
      path: one,
      status: 204,
      tag,
      notes:
        'Deletes the connection, its sealed access and its links; the rows it imported stay. The member who connected it, or an owner. Disable the token at the bridge as well.',
    }),
  ]
}
