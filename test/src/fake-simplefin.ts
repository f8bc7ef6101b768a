import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A transaction as the bridge holds it, in the protocol's own field names. */
export interface FakeTransaction {
  id: string
  posted: number
  amount: string
  description: string
  payee?: string
  memo?: string
  transacted_at?: number
  pending?: boolean
}

/** An account as the bridge holds it. */
export interface FakeAccount {
  id: string
  name: string
  currency: string
  balance: string
  'balance-date': number
  org: { name: string; domain: string }
  transactions: FakeTransaction[]
}

const DAY = 86_400

/**
 * A SimpleFIN bridge written from the protocol (https://www.simplefin.org/protocol.html), on
 * loopback: setup tokens are the base64 of a claim URL, each claimable once; the access URL
 * carries Basic credentials; `GET /accounts` filters by `start-date` (inclusive) and `end-date`
 * (exclusive) on the posted time (a pending row by when it happened), includes pending rows only
 * with `pending=1`, answers balances alone with `balances-only=1`, and caps a range over 90 days
 * with an `errors` message, as the Bridge does. A test can revoke the access, make requests fail
 * or hang, and read every request it received.
 */
export class FakeSimplefin {
  readonly accounts: FakeAccount[] = []
  readonly requests: { method: string; path: string; query: URLSearchParams }[] = []
  /** Messages the next answers carry in `errors`. */
  errors: string[] = []
  #server: Server
  #claimed = new Set<string>()
  #revoked = false
  #user = 'demo'
  #password = 'p@ss:word'
  /** Answers to give the next account requests instead: a status, or `hang` (never answers). */
  #failures: (number | 'hang')[] = []
  #hanging: ServerResponse[] = []
  base = ''

  constructor() {
    this.#server = createServer((req, res) => this.#handle(req, res))
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve))
    this.base = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`
    return this
  }

  async close(): Promise<void> {
    for (const res of this.#hanging) res.destroy()
    this.#server.closeAllConnections()
    await new Promise<void>((resolve) => this.#server.close(() => resolve()))
  }

  /** A new setup token, as the bridge shows the household. */
  setupToken(): string {
    const id = Math.random().toString(36).slice(2)
    return Buffer.from(`${this.base}/claim/${id}`).toString('base64')
  }

  revoke(): void {
    this.#revoked = true
  }

  /** The next `n` account requests answer `what` (an HTTP status, or never). */
  failNext(what: number | 'hang', n = 1): void {
    for (let i = 0; i < n; i++) this.#failures.push(what)
  }

  /** The `n`th account request from now (1 = the next) answers `what`; those before it answer as usual. */
  failLater(n: number, what: number | 'hang'): void {
    this.#failures.length = 0
    for (let i = 1; i < n; i++) this.#failures.push(0)
    this.#failures.push(what)
  }

  accountRequests() {
    return this.requests.filter((r) => r.path.endsWith('/accounts'))
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', this.base)
    this.requests.push({ method: req.method ?? '', path: url.pathname, query: url.searchParams })
    const claim = /^\/claim\/(.+)$/.exec(url.pathname)
    if (claim && req.method === 'POST') {
      if (this.#claimed.has(claim[1]!)) return void res.writeHead(403).end('Forbidden')
      this.#claimed.add(claim[1]!)
      const access = new URL(`${this.base}/simplefin`)
      access.username = encodeURIComponent(this.#user)
      access.password = encodeURIComponent(this.#password)
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end(access.toString())
    }
    if (url.pathname !== '/simplefin/accounts' || req.method !== 'GET') return void res.writeHead(404).end()
    const expected = `Basic ${Buffer.from(`${this.#user}:${this.#password}`).toString('base64')}`
    if (this.#revoked || req.headers.authorization !== expected)
      return void res.writeHead(403).end('Forbidden')
    const failure = this.#failures.shift()
    if (failure === 'hang') return void this.#hanging.push(res)
    if (failure !== undefined && failure !== 0) return void res.writeHead(failure).end('unavailable')
    const q = url.searchParams
    const errors = [...this.errors]
    let start = q.has('start-date') ? Number(q.get('start-date')) : 0
    const end = q.has('end-date') ? Number(q.get('end-date')) : Number.MAX_SAFE_INTEGER
    if (end - start > 90 * DAY) {
      errors.push('Requested date range exceeds limit of 90 days and was capped.')
      start = end - 90 * DAY
    }
    const pending = q.get('pending') === '1'
    const balancesOnly = q.get('balances-only') === '1'
    const accounts = this.accounts.map((a) => ({
      ...a,
      transactions: balancesOnly
        ? []
        : a.transactions.filter((t) => {
            if (t.pending && !pending) return false
            const at = t.pending ? (t.transacted_at ?? 0) : t.posted
            return at >= start && at < end
          }),
    }))
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ errors, accounts }))
  }
}

/** Seconds since the epoch of a day at noon UTC, `days` from `from`. */
export function dayAt(from: Date, days: number): number {
  return Math.floor(from.getTime() / 1000 / DAY + days) * DAY + DAY / 2
}
