import { createHash } from 'node:crypto'
import type { FetchedWindow, RemoteAccount, RemoteTransaction } from '@hearth/engine'
import { z } from 'zod'
import type { UrlGuardOptions } from '../webhooks/url-guard.ts'
import { requestProvider } from './outbound.ts'
import type { BankProvider, ConnectOutcome, FetchOutcome } from './provider.ts'

/**
 * The SimpleFIN protocol (https://www.simplefin.org/protocol.html), as the SimpleFIN Bridge
 * serves it: a setup token is the base64 of a claim URL; one POST to it answers the access URL
 * (credentials included); `GET {access}/accounts` with `start-date`, `end-date` (seconds, the
 * end exclusive), `pending=1` or `balances-only=1` answers accounts, their transactions and an
 * `errors` list the household must see. The Bridge answers at most 90 days per request and
 * expects 24 requests a day or fewer per access (docs/api/bank-connections.md).
 */
export function simplefinProvider(options: { guard: UrlGuardOptions; timeoutMs: number }): BankProvider {
  const get = async <T>(
    access: string,
    query: string,
    read: (body: unknown) => T,
  ): Promise<FetchOutcome<T>> => {
    let answer: Awaited<ReturnType<typeof requestProvider>>
    try {
      answer = await requestProvider(`${access.replace(/\/+$/, '')}/accounts?${query}`, {
        method: 'GET',
        timeoutMs: options.timeoutMs,
        guard: options.guard,
      })
    } catch (error) {
      return { ok: false, kind: 'unavailable', message: messageOf(error) }
    }
    if (answer.status === 403 || answer.status === 401)
      return {
        ok: false,
        kind: 'accessRefused',
        message:
          'The bridge refused this connection’s access: it was revoked or has expired. Connect again with a new setup token.',
      }
    if (answer.status === 402)
      return {
        ok: false,
        kind: 'accessRefused',
        message: 'The bridge asks for payment before it shares data again (HTTP 402).',
      }
    if (answer.status < 200 || answer.status > 299)
      return { ok: false, kind: 'unavailable', message: `The bridge answered HTTP ${answer.status}.` }
    let body: unknown
    try {
      body = JSON.parse(answer.body)
    } catch {
      return { ok: false, kind: 'unavailable', message: 'The bridge answered something that is not JSON.' }
    }
    return { ok: true, value: read(body) }
  }
  return {
    name: 'simplefin',
    maxWindowDays: 90,
    async connect(setupToken): Promise<ConnectOutcome> {
      const claimUrl = claimUrlOf(setupToken)
      const answer = await requestProvider(claimUrl, {
        method: 'POST',
        timeoutMs: options.timeoutMs,
        guard: options.guard,
      })
      if (answer.status === 403)
        return { ok: false, refused: 'the token was claimed already, or is not one the bridge issued' }
      if (answer.status < 200 || answer.status > 299)
        throw new Error(`The bridge answered the claim with HTTP ${answer.status}.`)
      const access = answer.body.trim()
      let url: URL
      try {
        url = new URL(access)
      } catch {
        throw new Error('The bridge answered the claim with something that is not an access URL.')
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:')
        throw new Error('The bridge answered the claim with something that is not an access URL.')
      return { ok: true, access }
    },
    listAccounts(access) {
      return get(access, 'balances-only=1', (body) => {
        const { accounts, errors } = readAccountSet(body)
        return { accounts, errors }
      })
    },
    fetchWindow(access, start, end) {
      return get(access, `start-date=${start}&end-date=${end}&pending=1`, (body): FetchedWindow => {
        const { accounts, errors } = readAccountSet(body)
        return { start, end, accounts, errors }
      })
    },
  }
}

/** The claim URL a setup token names; a token that is not one is a 400 naming why. */
export function claimUrlOf(setupToken: string): string {
  const text = Buffer.from(setupToken.trim(), 'base64').toString('utf8').trim()
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new SetupTokenError()
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new SetupTokenError()
  return url.toString()
}

/** A setup token that is not the base64 of an http(s) claim URL. */
export class SetupTokenError extends Error {
  constructor() {
    super(
      'The setup token is not one: it must be the base64 of the bridge’s claim URL, as the bridge shows it.',
    )
  }
}

/** SHA-256 of a setup token, to tell a token claimed twice without keeping it. */
export function setupTokenHash(setupToken: string): string {
  return createHash('sha256').update(setupToken.trim()).digest('hex')
}

const Loose = z.looseObject({})
const text = (v: unknown, max: number) => (typeof v === 'string' ? v.slice(0, max) : '')
const seconds = (v: unknown) =>
  typeof v === 'number' && Number.isInteger(v) && v > 0 && v < 32_503_680_000 ? v : null
const amountText = (v: unknown) =>
  typeof v === 'string' ? v.slice(0, 40) : typeof v === 'number' ? String(v) : ''

/** Reads the answer leniently: a malformed account or row is named in `errors`, never a crash. */
function readAccountSet(body: unknown): { accounts: RemoteAccount[]; errors: string[] } {
  const root = Loose.safeParse(body)
  if (!root.success) return { accounts: [], errors: ['The bridge answered without an accounts list.'] }
  const errors: string[] = []
  const raw = root.data as Record<string, unknown>
  if (Array.isArray(raw.errors))
    for (const e of raw.errors) if (typeof e === 'string') errors.push(e.slice(0, 2000))
  if (Array.isArray(raw.errlist))
    for (const e of raw.errlist) {
      const m = (e as Record<string, unknown>)?.msg
      if (typeof m === 'string') errors.push(m.slice(0, 2000))
    }
  const accounts: RemoteAccount[] = []
  for (const a of Array.isArray(raw.accounts) ? raw.accounts : []) {
    const acc = a as Record<string, unknown>
    const id = text(acc.id, 200)
    if (!id) {
      errors.push('The bridge sent an account without an id; it was left out.')
      continue
    }
    const org = (acc.org ?? {}) as Record<string, unknown>
    const transactions: RemoteTransaction[] = []
    for (const t of Array.isArray(acc.transactions) ? acc.transactions : []) {
      const tr = t as Record<string, unknown>
      const tid = text(tr.id, 200)
      if (!tid) {
        errors.push(`The bridge sent a transaction without an id in account ${id}; it was left out.`)
        continue
      }
      transactions.push({
        id: tid,
        postedAt: seconds(tr.posted),
        transactedAt: seconds(tr.transacted_at),
        amount: amountText(tr.amount),
        description: text(tr.description, 1000),
        payee: typeof tr.payee === 'string' ? tr.payee.slice(0, 500) : null,
        memo: typeof tr.memo === 'string' ? tr.memo.slice(0, 1000) : null,
        pending: tr.pending === true,
      })
    }
    accounts.push({
      id,
      name: text(acc.name, 200) || id,
      institution: text(org.name, 200) || text(org.domain, 200) || null,
      currency: text(acc.currency, 200) || 'USD',
      balance:
        typeof acc.balance === 'string' || typeof acc.balance === 'number' ? amountText(acc.balance) : null,
      balanceAt: seconds(acc['balance-date']),
      transactions,
    })
  }
  return { accounts, errors }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
