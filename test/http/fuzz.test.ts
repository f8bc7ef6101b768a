import { Agent, request as httpRequest } from 'node:http'
import { operations, SCOPES, type Scope } from '@hearth/engine'
import { DEFAULT_COST_LIMITS, DEFAULT_RATE_LIMITS } from '@hearth/server'
import fc from 'fast-check'
import { sql } from 'kysely'
import { ulid } from 'ulidx'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiClient, type TestMember, useTestServer } from '../src/index.ts'

/**
 * An outside fuzz of every operation the served `/openapi.json` lists, through the real server
 * over real HTTP: no token, a foreign household, a key without the operation's scope, and
 * hostile bodies, path parameters and query strings made by fast-check. Nothing is skipped.
 * Every answer must be below 500, JSON (problem+json with a `code` for a 4xx), free of stack
 * frames and source paths, and free of the other household's name and row ids.
 *
 * The hostile pass is bounded (RUNS cases per operation, TIME_LIMIT_MS each) and seeded, so a
 * failure reproduces: it prints the operation, its seed and the shrunk request.
 */

// The sweep sends thousands of requests, many with a wrong key, from one address: the limits
// would answer 429 before the checks under test (rate-limits.test.ts covers them).
const server = useTestServer({
  rateLimits: {
    ...DEFAULT_RATE_LIMITS,
    authFailuresPerAddress: 1_000_000,
    authFailuresPerPrefix: 1_000_000,
    restPerKey: 1_000_000,
  },
  // The sweep calls expensive operations back to back: no rest between them, no yielding.
  costLimits: { ...DEFAULT_COST_LIMITS, expensiveRestPercent: 0, yieldMs: 0 },
})

const SEED = 20_240_611
const RUNS = 25
const TIME_LIMIT_MS = 8_000
/** The largest amount an operation takes (CentsSchema). */
const MAX_CENTS = 9_000_000_000_000
/** Makes names unique. */
let counter = 0
/** Under the server's 1 MiB body limit, with room for the JSON around it. */
const HUGE = 1024 * 1024 - 4096

// ---------------------------------------------------------------------------------------------
// The document

type Schema = {
  $ref?: string
  type?: string | string[]
  anyOf?: Schema[]
  oneOf?: Schema[]
  enum?: unknown[]
  const?: unknown
  properties?: Record<string, Schema>
  required?: string[]
  items?: Schema
  pattern?: string
  minimum?: number
  exclusiveMinimum?: number
  minLength?: number
  maximum?: number
  additionalProperties?: unknown
}

type Parameter = { in: string; name: string; required?: boolean; schema?: Schema }

type DocOperation = {
  operationId: string
  description?: string
  parameters?: Parameter[]
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> }
}

type Doc = {
  paths: Record<string, Record<string, DocOperation>>
  components: { schemas: Record<string, Schema> }
}

/** One operation of the document, with what the fuzz needs to call it. */
interface Op {
  id: string
  method: string
  path: string
  scope: Scope | undefined
  write: boolean
  pathParams: string[]
  query: Parameter[]
  body: Schema | undefined
  label: string
}

let doc: Doc
let ops: Op[]

function resolve(schema: Schema): Schema {
  let s = schema
  while (s.$ref) s = doc.components.schemas[s.$ref.split('/').pop()!]!
  return s
}

function operationsOf(document: Doc): Op[] {
  return Object.entries(document.paths).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, op]) => {
      const fromDescription = /Requires scope `([^`]+)`/.exec(op.description ?? '')?.[1] as Scope | undefined
      const registered = operations.byName.get(op.operationId)
      // The registry is the source; the sync fallbacks are not registry operations, so their
      // scope comes from the description, which states it the same way.
      const scope = registered ? (registered.scope ?? undefined) : fromDescription
      return {
        id: op.operationId,
        method: method.toUpperCase(),
        path,
        scope,
        write: ['POST', 'PUT', 'PATCH'].includes(method.toUpperCase()),
        pathParams: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!),
        query: (op.parameters ?? []).filter((p) => p.in === 'query'),
        body: op.requestBody?.content['application/json']?.schema,
        label: `${method.toUpperCase()} ${path} (${op.operationId})`,
      }
    }),
  )
}

// ---------------------------------------------------------------------------------------------
// Two households with one of every row: the caller's own, and a foreign one it must never see

interface Seeded {
  householdId: string
  userId: string
  name: string
  accountA: string
  accountB: string
  tx1: string
  tx2: string
  payee: string
  alias: string
  tag: string
  flag: string
  group: string
  category: string
  apiKey: string
  /** The account in another currency, and its transaction of the largest amount. */
  euros: string
  largest: string
  rule: string
  /** A loan account with terms, for the loan operations' `{accountId}`. */
  loan: string
  recurrence: string
  /** A committed bank import (one CSV row) on accountA. */
  importBatch: string
}

let victim: TestMember
let victimRows: Seeded
/** The strings the caller must never read unless it sent them itself. */
let secrets: string[]
let caller: TestMember
let own: Seeded
/** Whether a request that may write (any but GET) went out since `own` was seeded or last found unchanged. */
let ownMayHaveChanged = false
/** `stateOf(caller)` just after `own` was seeded. */
let ownState = ''
const OWN_NAME = 'Fuzz household'

async function seed(member: TestMember, name: string): Promise<Seeded> {
  const H = `/households/${member.householdId}`
  const made = async (method: string, path: string, body: unknown) => {
    const res = await member.api.request(method, path, body)
    if (res.status >= 300)
      throw new Error(`seed ${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body
  }
  await made('PATCH', H, { name })
  // Names are unique within a household, and the caller's rows are made again for each operation.
  const n = `${name} ${++counter}`
  const accountA = (await made('POST', `${H}/accounts`, { name: `${n} checking`, type: 'cash' })).id
  const accountB = (await made('POST', `${H}/accounts`, { name: `${n} savings`, type: 'cash' })).id
  const payee = (await made('POST', `${H}/payees`, { name: `${n} grocer` })).id
  const alias = (await made('POST', `${H}/payees/${payee}/aliases`, { name: `${n} grocer alias` })).id
  const tag = (await made('POST', `${H}/tags`, { name: `${n} tag` })).id
  const flag = (await made('POST', `${H}/flags`, { name: `${n} flag`, color: '#ff0000' })).id
  const group = (await made('POST', `${H}/category-groups`, { name: `${n} group` })).id
  const category = (await made('POST', `${H}/categories`, { groupId: group, name: `${n} food` })).id
  const tx = (accountId: string, amountCents: number) =>
    made('POST', `${H}/transactions`, { accountId, date: '2024-03-01', amountCents, payeeId: payee })
  const tx1 = (await tx(accountA, -1250)).id
  const tx2 = (await tx(accountB, 1250)).id
  await made('PUT', `${H}/exchange-rates/USD/EUR`, { rate: '0.9' })
  // Extreme but valid data for every read to meet: the largest amount, today, in a currency
  // converted to the base (USD) at the largest rate.
  const euros = (await made('POST', `${H}/accounts`, { name: `${n} euros`, type: 'cash', currency: 'EUR' }))
    .id
  await made('PUT', `${H}/exchange-rates/EUR/USD`, { rate: '999999999999' })
  const today = new Date().toISOString().slice(0, 10)
  const largest = (
    await made('POST', `${H}/transactions`, { accountId: euros, date: today, amountCents: MAX_CENTS })
  ).id
  const apiKey = (await made('POST', '/users/me/api-keys', { name: `${n} key`, scopes: ['read:tags'] })).id
  const rule = (await made('POST', `${H}/rules`, ruleBody(category))).id
  const loan = (await made('POST', `${H}/accounts`, { name: `${n} mortgage`, type: 'loan' })).id
  await made('PUT', `${H}/accounts/${loan}/loan-terms`, {
    effectiveDate: '2024-01-01',
    principalCents: 20_000_000,
    annualRatePercent: '6.5',
    termMonths: 360,
    escrowCents: 30_000,
  })
  const recurrence = (
    await made('POST', `${H}/recurrences`, {
      name: `${n} rent`,
      accountId: accountA,
      amountCents: -1250,
      frequency: 'monthly',
      startDate: '2024-03-01',
    })
  ).id
  const importBatch = (
    await made('POST', `${H}/imports`, {
      accountId: accountA,
      format: 'csv',
      content: `Date,Payee,Amount\n2024-03-02,${n} bank text,-3.10\n`,
    })
  ).batch.id
  return {
    householdId: member.householdId,
    userId: member.userId,
    name,
    accountA,
    accountB,
    tx1,
    tx2,
    payee,
    alias,
    tag,
    flag,
    group,
    category,
    apiKey,
    euros,
    largest,
    rule,
    loan,
    recurrence,
    importBatch,
  }
}

/** A rule that matches the seeded rows' payee and sets the seeded category. */
function ruleBody(category: string) {
  return {
    name: `Fuzz rule ${++counter}`,
    predicate: { combinator: 'all', conditions: [{ field: 'payee_name', op: 'contains', value: 'grocer' }] },
    action: { setCategoryId: category },
  }
}

/** What each path parameter is, in a household's rows. */
function pathValues(s: Seeded): Record<string, string> {
  return {
    householdId: s.householdId,
    accountId: s.accountA,
    transactionId: s.tx1,
    payeeId: s.payee,
    aliasId: s.alias,
    tagId: s.tag,
    flagId: s.flag,
    groupId: s.group,
    categoryId: s.category,
    id: s.apiKey,
    keyId: s.apiKey,
    userId: s.userId,
    ruleId: s.rule,
    recurrenceId: s.recurrence,
    key: `detected:${s.accountA}:p:${s.payee}:monthly`,
    // No bank connection exists in a seeded household: any remote account, answered 404 once scope and input pass.
    remoteId: 'ACT-fuzz',
    // No such session: revoking it answers 404 once scope and input pass.
    sessionId: '01ARZ3NDEKTSV4RRFFQ69G5FAV',
    // No passkey exists in a seeded household: renaming or removing one answers 404 likewise.
    passkeyId: '01ARZ3NDEKTSV4RRFFQ69G5FAV',
    // No insight exists in a fresh household: dismiss answers 404 after the checks the fuzz makes.
    insightId: '01ARZ3NDEKTSV4RRFFQ69G5FAV',
    importId: s.importBatch,
    // No delivery exists in a seeded household: any id, answered 404 once scope and input pass.
    deliveryId: s.apiKey,
    yearMonth: '2024-03',
    sourceYearMonth: '2024-02',
    fromCurrency: 'USD',
    toCurrency: 'EUR',
    loanAccountId: s.loan,
    cashAccountId: s.accountA,
    effectiveDate: '2024-01-01',
  }
}

/** What a body or query field naming a row is filled with, in a household's rows. */
function fieldValues(s: Seeded): Record<string, string | string[]> {
  return {
    householdId: s.householdId,
    defaultHouseholdId: s.householdId,
    accountId: s.accountA,
    fromAccountId: s.accountA,
    toAccountId: s.accountB,
    transactionId: s.tx1,
    counterpartId: s.tx2,
    candidateId: s.tx2,
    payeeId: s.payee,
    targetPayeeId: s.payee,
    categoryId: s.category,
    groupId: s.group,
    tagId: s.tag,
    flagId: s.flag,
    tagIds: [s.tag],
    flagIds: [s.flag],
    ids: [s.tx1],
    accountIds: [s.accountA, s.accountB],
    ruleId: s.rule,
  }
}

// ---------------------------------------------------------------------------------------------
// Valid-shaped input, made from the document's schemas

const ULID_PATTERN = '^[0-9A-HJKMNP-TV-Z]{26}$'

function stringFor(schema: Schema, name: string): string {
  const p = schema.pattern ?? ''
  if (p === ULID_PATTERN) return ulid()
  if (p.includes('\\d{4}-\\d{2}-\\d{2}')) return '2024-03-02'
  if (p.startsWith('^#')) return '#336699'
  if (p === '^[A-Z]{3}$') return 'EUR'
  if (p.includes('\\d{1,16}')) return '1250'
  if (name === 'email') return `fuzz${++counter}@example.com`
  if (name === 'timeZone') return 'Europe/Berlin'
  if (name === 'dataLanguage') return 'en'
  if (name === 'clientId') return `fuzz-${ulid()}`
  return `Fuzz ${++counter}`.padEnd(schema.minLength ?? 0, 'x')
}

/** A value of `schema` with its required fields only, ids taken from `rows`. */
function sample(schema: Schema, name: string, rows: Record<string, string | string[]>, depth = 0): unknown {
  const s = resolve(schema)
  if (s.enum) return s.enum[0]
  if (s.const !== undefined) return s.const
  const branches = s.anyOf ?? s.oneOf
  if (branches) return sample(branches[0]!, name, rows, depth)
  const known = rows[name]
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type
  switch (type) {
    case 'string':
      return typeof known === 'string' ? known : stringFor(s, name)
    case 'integer':
    case 'number':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1)
    case 'boolean':
      return false
    case 'array':
      if (Array.isArray(known)) return known
      return s.items && depth < 4 ? [sample(s.items, name.replace(/s$/, ''), rows, depth + 1)] : []
    default:
      return Object.fromEntries(
        (s.required ?? []).map((k) => [k, sample(s.properties![k]!, k, rows, depth + 1)]),
      )
  }
}

/** A body each operation would take, or near enough to reach its engine code. */
function validBody(op: Op, rows: Record<string, string | string[]>): Record<string, unknown> | undefined {
  if (!op.body) return op.write ? {} : undefined
  switch (op.id) {
    case 'sync.push':
      return {
        v: 1,
        householdId: rows.householdId,
        clientId: `fuzz-${ulid()}`,
        mutations: [{ id: 1, name: 'tags.create', args: { id: ulid(), name: `Fuzz ${++counter}` } }],
      }
    case 'exchangeRates.upsert':
      return { rate: '1.25' }
    case 'profile.replacePreferences':
      return { theme: 'dark' }
    case 'transactions.bulkUpdate':
      return { ids: rows.ids, patch: { memo: `Fuzz ${++counter}` } }
    case 'rules.create':
      return ruleBody(rows.categoryId as string)
    case 'bankConnections.link':
      // accountId or createAccount, one of them: the sample would send both.
      return { accountId: rows.accountId ?? null }
  }
  return sample(op.body, '', rows) as Record<string, unknown>
}

/** The required query parameters, filled. */
function validQuery(op: Op, rows: Record<string, string | string[]>): [string, string][] {
  return op.query
    .filter((p) => p.required)
    .map((p) => [p.name, String(sample(p.schema ?? { type: 'string' }, p.name, rows))])
}

/** A field of a body, nested ones included: `name`, `splits.0.amountCents`. */
interface Field {
  path: string[]
  schema: Schema
}

function fieldsOf(schema: Schema | undefined, path: string[] = []): Field[] {
  if (!schema || path.length > 5) return []
  const s = resolve(schema)
  const here = path.length > 0 ? [{ path, schema: s }] : []
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type
  if (type === 'array' && s.items) return [...here, ...fieldsOf(s.items, [...path, '0'])]
  if (!s.properties) return here
  return [...here, ...Object.entries(s.properties).flatMap(([k, v]) => fieldsOf(v, [...path, k]))]
}

/** The fields of an operation's body; a sync push's also reach into its mutation's arguments. */
function bodyFields(op: Op): Field[] {
  const fields = fieldsOf(op.body)
  if (op.id === 'sync.push')
    fields.push({ path: ['mutations', '0', 'args', 'name'], schema: { type: 'string' } })
  return fields
}

/** Whether a schema takes any JSON value (a sync mutation's `args`, say). */
function takesAnything(schema: Schema): boolean {
  const s = resolve(schema)
  return !s.type && !s.anyOf && !s.oneOf && !s.enum && s.const === undefined && !s.properties
}

/** Puts `value` at `path` of a copy of `body`, making the containers on the way. */
function setPath(body: unknown, path: readonly string[], value: unknown): unknown {
  if (path.length === 0) return value
  const [head, ...rest] = path as [string, ...string[]]
  if (head === '0') {
    const list = Array.isArray(body) ? [...body] : []
    list[0] = setPath(list[0] ?? {}, rest, value)
    return list
  }
  const object = body && typeof body === 'object' && !Array.isArray(body) ? { ...body } : {}
  // defineProperty, so `__proto__` is an own key, as JSON.parse would make it.
  Object.defineProperty(object, head, {
    value: setPath((object as Record<string, unknown>)[head], rest, value),
    enumerable: true,
    writable: true,
    configurable: true,
  })
  return object
}

/** The largest and smallest values a numeric field takes: positions at 2^31 - 1, the largest amounts. */
function extremesOf(schema: Schema): unknown[] {
  return (resolve(schema).anyOf ?? [schema]).flatMap((branch): unknown[] => {
    const s = resolve(branch)
    if (s.pattern?.includes('\\d{1,16}')) return [String(MAX_CENTS), String(-MAX_CENTS)]
    if (s.type !== 'integer' && s.type !== 'number') return []
    return [s.maximum ?? MAX_CENTS, s.minimum ?? -MAX_CENTS]
  })
}

/** A value of another JSON type than `schema` allows. */
function wrongType(schema: Schema): unknown {
  const s = resolve(schema)
  const types = new Set(
    (s.anyOf ?? s.oneOf ?? [s]).flatMap((b) => {
      const r = resolve(b)
      return r.enum ? [typeof r.enum[0]] : Array.isArray(r.type) ? r.type : r.type ? [r.type] : ['object']
    }),
  )
  if (!types.has('object')) return { nested: { value: 1 } }
  if (!types.has('array')) return ['a', 1]
  if (!types.has('string')) return 'not the right type'
  return true
}

// ---------------------------------------------------------------------------------------------
// Raw HTTP, so hostile paths (`..`, `%00`) reach the server exactly as written

const agent = new Agent({ keepAlive: true, maxSockets: 1 })

interface Sent {
  method: string
  path: string
  body?: string
  contentType?: string | null
  headers?: Record<string, string>
}

interface Answer {
  status: number
  type: string
  text: string
  json: any
}

function send(token: string | null, req: Sent): Promise<Answer> {
  if (req.method !== 'GET') ownMayHaveChanged = true
  const url = new URL(server.url)
  const payload = req.body === undefined ? undefined : Buffer.from(req.body, 'utf8')
  const headers: Record<string, string | number> = { ...req.headers }
  if (token) headers.authorization = `Bearer ${token}`
  if (payload) {
    headers['content-length'] = payload.length
    const type = req.contentType === undefined ? 'application/json' : req.contentType
    if (type !== null) headers['content-type'] = type
  }
  return new Promise((done, fail) => {
    const r = httpRequest(
      { host: url.hostname, port: url.port, method: req.method, path: req.path, headers, agent },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('error', fail)
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          const type = String(res.headers['content-type'] ?? '')
          let json: unknown
          try {
            json = text ? JSON.parse(text) : undefined
          } catch {
            json = undefined
          }
          done({ status: res.statusCode ?? 0, type, text, json })
        })
      },
    )
    r.on('error', fail)
    r.end(payload)
  })
}

function fill(op: Op, values: Record<string, string>): string {
  const filled = forOperation(op, values)
  return op.path.replace(/\{(\w+)\}/g, (_, p: string) => encodeURIComponent(filled[p] ?? ''))
}

/**
 * The path values for `op`: a loan operation's `{accountId}` is the household's loan account, to
 * reach its math, unless a test put another household's account there.
 */
function forOperation(op: Op, values: Record<string, string>): Record<string, string> {
  const swap = op.id.startsWith('loans.') && values.accountId === values.cashAccountId
  return swap ? { ...values, accountId: values.loanAccountId ?? '' } : values
}

function withQuery(path: string, pairs: readonly (readonly [string, string])[], raw = false): string {
  if (pairs.length === 0) return path
  const encode = (v: string) => (raw ? v : encodeURIComponent(v))
  return `${path}?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encode(v)}`).join('&')}`
}

// ---------------------------------------------------------------------------------------------
// What every answer must be

const TRACES: RegExp[] = [
  /\bat (?:async )?[\w$.<>[\]]+ \(/, // a V8 stack frame: "at fn (file:line:col)"
  /\bat (?:async )?(?:file:\/\/|\/|node:)/, // a frame with no function name
  /\/work\//,
  /node_modules/,
  /\.(?:ts|js|mjs|cjs):\d+/,
  /file:\/\//,
]

function describeSent(req: Sent): string {
  const body =
    req.body === undefined
      ? ''
      : ` ${req.body.length > 300 ? `${req.body.slice(0, 300)}… (${req.body.length} chars)` : req.body}`
  return `${req.method} ${req.path.length > 300 ? `${req.path.slice(0, 300)}…` : req.path}${body}`
}

/** The rules every answer keeps; returns what it broke, or nothing. */
function problemsOf(req: Sent, res: Answer): string[] {
  const out: string[] = []
  const sent = `${req.path}\n${req.body ?? ''}\n${JSON.stringify(req.headers ?? {})}`
  if (res.status >= 500) out.push(`answered ${res.status}`)
  if (res.status !== 204) {
    if (!/^application\/(problem\+)?json\b/.test(res.type)) out.push(`content-type ${res.type || '(none)'}`)
    else if (res.json === undefined) out.push('a body that is not JSON')
  }
  if (res.status >= 400) {
    if (!res.type.startsWith('application/problem+json')) out.push(`a ${res.status} that is not problem+json`)
    if (typeof res.json?.code !== 'string' || res.json.code === '') out.push(`a ${res.status} without a code`)
  }
  for (const trace of TRACES) {
    if (trace.test(res.text) && !trace.test(sent)) out.push(`a stack trace or source path (${trace})`)
  }
  // The caller may be told back what it sent (`instance` is the path); nothing else of the other household.
  for (const secret of secrets) {
    if (res.text.includes(secret) && !sent.includes(secret)) out.push(`the foreign household's ${secret}`)
  }
  return out.map((p) => `${p}: ${res.text.slice(0, 400)}`)
}

function expectClean(req: Sent, res: Answer): void {
  const broken = problemsOf(req, res)
  if (broken.length > 0) throw new Error(`${describeSent(req)}\n  ${broken.join('\n  ')}`)
}

/** The caller's state a write could change: its household's clock, its user row and its keys. */
async function stateOf(member: TestMember): Promise<string> {
  const db = server.store.db
  const [clock, user, keys] = await Promise.all([
    // With the tables its last change wrote, so that a change shows what it touched.
    sql`select c.version, (select array_agg(distinct l.table_name order by l.table_name) from change_log l
          where l.household_id = c.household_id and l.version = c.version) as tables
        from household_clock c where c.household_id = ${member.householdId}`.execute(db),
    sql`select * from users where id = ${member.userId}`.execute(db),
    sql`select id, name, revoked_at from api_keys where user_id = ${member.userId} order by id`.execute(db),
  ])
  return JSON.stringify([clock.rows, user.rows, keys.rows])
}

// ---------------------------------------------------------------------------------------------
// Hostile input

const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff\ud800',
  '🏠🔥👩‍👩‍👧',
  '\u202egnp.exe',
  'e\u0301\u0301\u0301',
  '\ufeff',
  '\u2028\u2029',
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '1e308',
  '1e999',
  '0x1F',
  '99999999999999999999',
  '-9999999999999999',
  '9999999999999999',
  '1.5',
  '2024-02-30',
  '0000-01-01',
  '0001-01-01',
  '9999-12-31',
  '+275760-09-13',
  'current',
  'page',
  '..',
  '../../etc/passwd',
  '%00',
  '%2F',
  '<img src=x onerror=alert(1)>',
  "'; drop table users; --",
  '{{7*7}}',
  'true',
  'null',
  '__proto__',
  'constructor',
  'EUR',
  'zz-ZZ-x-nonsense',
  'Mars/Olympus_Mons',
  ulid().toLowerCase(),
]

const hugeString = fc.oneof(
  fc.integer({ min: 1_000, max: HUGE }).map((n) => 'x'.repeat(n)),
  fc.integer({ min: 1_000, max: HUGE / 8 }).map((n) => '🏠'.repeat(n)),
)

const hostileString = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: hugeString },
)

const hostileNumber = fc.oneof(
  fc.constantFrom(1e308, -1e308, 5e-324, -0, 0, 2 ** 53, -(2 ** 53), 2 ** 63, 1.5, -1, 2 ** 31, 9e15),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
)

function nested(depth: number, leaf: unknown = 1): unknown {
  let value = leaf
  for (let i = 0; i < depth; i++) value = { a: value }
  return value
}

const protoObject = fc.constantFrom(
  JSON.parse('{"__proto__":{"polluted":true}}'),
  JSON.parse('{"constructor":{"prototype":{"polluted":true}}}'),
  JSON.parse('{"toString":"x","valueOf":1,"hasOwnProperty":null}'),
)

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: hostileString },
  { weight: 3, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.integer({ min: 10, max: 2_000 }).map((n) => nested(n)) },
  { weight: 1, arbitrary: protoObject },
)

/** Whole bodies, as the raw text sent. */
const hostileBodyText = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'null',
      '[]',
      '[{}]',
      '"a string"',
      '0',
      '-0',
      '1e308',
      '1e999',
      '-1e999',
      'true',
      '{}',
      '{',
      '{"a":1,}',
      'NaN',
      'undefined',
      '\u0000',
      '\ufeff{}',
      '{"__proto__":{"polluted":true}}',
      '{"constructor":{"prototype":{"polluted":true}}}',
      '{"a":"\\u0000"}',
      '{"a":"\\ud800"}',
    ),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 100, max: 50_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 100, max: 50_000 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
  },
  { weight: 2, arbitrary: hostileValue.map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: HUGE }).map((n) => JSON.stringify('x'.repeat(n))) },
)

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      null,
      'text/plain',
      'application/merge-patch+json',
      'application/json; charset=utf-16',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded',
    ),
  },
)

const HOSTILE_SEGMENTS = [
  '..',
  '.',
  '%2e%2e',
  '%2E%2E%2F%2E%2E',
  '%00',
  'a%00b',
  '%2F',
  'a%2Fb',
  '..%2F..%2F..%2Fetc%2Fpasswd',
  '%',
  '%zz',
  '%E0%A4%A',
  '%C0%AE%C0%AE',
  '%ED%A0%80',
  'current',
  'page',
  'me',
  '',
  '%20',
  '~',
  '*',
  '%F0%9F%8F%A0',
  'null',
  '-1',
  '0',
  '__proto__',
  'constructor',
  ulid().toLowerCase(),
]

const hostileSegment = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS) },
  {
    weight: 2,
    arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).map(encodeURIComponent),
  },
  { weight: 1, arbitrary: fc.integer({ min: 65, max: 6_000 }).map((n) => 'A'.repeat(n)) },
)

const hostileQueryValue = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '',
      'x',
      '0',
      '-1',
      '1e308',
      '99999999999999999999',
      '9007199254740993',
      '1.5',
      'NaN',
      'true',
      'yes',
      'null',
      '2024-02-30',
      '0001-01-01',
      '9999-12-31',
      '1900-01-01',
      'current',
      '\u0000',
      '%',
      '_',
      '\\',
      'cash',
      'pending',
    ),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 4_000 }).map((n) => '9'.repeat(n)) },
)

/** Text PostgreSQL cannot hold, and a long string, put in every body field by the sweep. */
const SWEEP_TEXT = [
  'nul \u0000 in text',
  'lone \ud800 high surrogate',
  '\udc00 lone low surrogate',
  'x'.repeat(200_000),
]

/** Query values, sent as written (already encoded). */
const SWEEP_QUERY = [
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%',
  '',
  '1e308',
  '-1',
  '0001-01-01',
  '9999-12-31',
  '9'.repeat(4_000),
]

/** Keys an object inherits, or that set its prototype, besides a plainly unknown one. */
const PROTOTYPE_KEYS = ['unknownKey', '__proto__', 'constructor', 'toString']

/** Segments a URL resolves away, as RFC 3986 and the WHATWG URL parser the server uses do. */
const DOT_SEGMENTS = ['..', '%2e%2e']

/** Path segments, sent as written. */
const SWEEP_SEGMENTS = [
  '%00',
  'a%00b',
  '%ED%A0%80',
  '..',
  '%2e%2e',
  '%2F',
  'A'.repeat(6_000),
  'current',
  '%F0%9F%8F%A0',
]

/** One hostile request to an operation, in the caller's own household. */
type Case =
  | { kind: 'body'; text: string; contentType: string | null }
  | { kind: 'field'; path: string[]; value: unknown }
  | { kind: 'segment'; param: string; segment: string }
  | { kind: 'query'; pairs: [string, string][] }
  | { kind: 'idempotency'; key: string }

function casesFor(op: Op): fc.Arbitrary<Case> {
  const arbitraries: fc.WeightedArbitrary<Case>[] = []
  if (op.write) {
    arbitraries.push({
      weight: 3,
      arbitrary: fc.record({ kind: fc.constant('body' as const), text: hostileBodyText, contentType }),
    })
    const paths = [
      ...bodyFields(op).map((f) => f.path),
      ['__proto__'],
      ['constructor'],
      ['prototype'],
      ['toString'],
      ['unknownField'],
    ]
    arbitraries.push({
      weight: 5,
      arbitrary: fc.record({
        kind: fc.constant('field' as const),
        path: fc.constantFrom(...paths),
        value: hostileValue,
      }),
    })
    arbitraries.push({
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('idempotency' as const),
        key: fc.oneof(
          fc.constantFrom('', ' ', 'k'.repeat(256), 'k'.repeat(255), '\t', 'ünïcödé'),
          fc.string({ unit: 'grapheme-ascii', maxLength: 300 }),
        ),
      }),
    })
  }
  if (op.pathParams.length > 0) {
    arbitraries.push({
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('segment' as const),
        param: fc.constantFrom(...op.pathParams),
        segment: hostileSegment,
      }),
    })
  }
  const keys = [...op.query.map((p) => p.name), 'unknown', '__proto__', 'constructor', 'limit', '']
  arbitraries.push({
    weight: op.query.length > 0 ? 4 : 1,
    arbitrary: fc.record({
      kind: fc.constant('query' as const),
      pairs: fc.array(
        fc.tuple(
          fc.oneof(
            { weight: 4, arbitrary: fc.constantFrom(...keys) },
            { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
          ),
          hostileQueryValue,
        ),
        { minLength: 1, maxLength: 4 },
      ),
    }),
  })
  return fc.oneof(...arbitraries)
}

function requestFor(op: Op, c: Case): Sent {
  const rows = fieldValues(own)
  const values = forOperation(op, pathValues(own))
  const body = validBody(op, rows)
  const query = validQuery(op, rows)
  const base: Sent = {
    method: op.method,
    path: withQuery(fill(op, values), query),
    body: body === undefined ? undefined : JSON.stringify(body),
  }
  switch (c.kind) {
    case 'body':
      return { ...base, body: c.text, contentType: c.contentType }
    case 'field':
      return { ...base, body: JSON.stringify(setPath(body ?? {}, c.path, c.value)) ?? 'null' }
    case 'segment': {
      const path = op.path.replace(/\{(\w+)\}/g, (_, p: string) =>
        p === c.param ? c.segment : encodeURIComponent(values[p] ?? ''),
      )
      return { ...base, path: withQuery(path, query) }
    }
    case 'query':
      return { ...base, path: withQuery(fill(op, values), [...query, ...c.pairs]) }
    case 'idempotency':
      return { ...base, headers: { 'idempotency-key': c.key } }
  }
}

/**
 * Fresh rows for an operation that names some (in its path, body or query), so an earlier
 * delete, close or conversion does not leave it nothing but 404s to answer. A seed (about 25
 * writes) is skipped when only reads went out since the last one, or when the writes changed
 * nothing: every seeded row is in a table the household's clock versions, or the caller's user
 * and keys, which `stateOf` reads, so an unchanged state means the rows are as they were made.
 */
async function freshRows(op: Op): Promise<void> {
  if (!ownMayHaveChanged) return
  const named = [fill(op, pathValues(own)), JSON.stringify(validBody(op, fieldValues(own)) ?? null)].join()
  const ids = Object.entries(own).filter(([k]) => k !== 'householdId' && k !== 'name')
  if (!ids.some(([, id]) => named.includes(id))) return
  if ((await stateOf(caller)) !== ownState) {
    own = await seed(caller, OWN_NAME)
    ownState = await stateOf(caller)
  }
  ownMayHaveChanged = false
}

function hash(text: string): number {
  let h = 0
  for (const ch of text) h = (h * 31 + ch.charCodeAt(0)) | 0
  return h
}

// ---------------------------------------------------------------------------------------------

describe('outside fuzz of every operation in /openapi.json', () => {
  beforeAll(async () => {
    doc = (await apiClient(server.url, null).get('/openapi.json')).body
    // Reads first: they change no row, so they all meet one seed's rows.
    ops = operationsOf(doc).sort((a, b) => Number(a.method !== 'GET') - Number(b.method !== 'GET'))
    victim = await server.newOwner()
    victimRows = await seed(victim, `Secret household ${ulid()}`)
    caller = await server.newOwner()
    own = await seed(caller, OWN_NAME)
    ownState = await stateOf(caller)
    secrets = [
      victimRows.name,
      victim.userId,
      ...Object.entries(victimRows)
        .filter(([k]) => k !== 'name')
        .map(([, v]) => v),
    ]
  })
  afterAll(() => agent.destroy())

  it('covers every operation of the document, each with a scope from the registry', () => {
    expect(ops.length).toBeGreaterThan(60)
    for (const op of ops) {
      // The health check is public and needs no scope; an invitation is redeemed with or without a key.
      // Signing in and redeeming a sign-in link are how a person without a key gets a session.
      // A device signs in or refreshes with what its body holds; whether an OpenID Connect provider
      // signs people in is public. A passkey sign-in's challenge is handed out to anyone, and its
      // answer is the credential; a passkey's challenge at a link or an invitation is handed out
      // for its code.
      if (
        [
          'system.health',
          'system.ready',
          'invitations.redeem',
          'invitations.passkeyOptions',
          'sessions.create',
          'sessions.passkeyOptions',
          'sessions.createWithPasskey',
          'signInLinks.redeem',
          'signInLinks.passkeyOptions',
          'devices.create',
          'devices.refresh',
          'oidc.provider',
          'emailVerifications.verify',
        ].includes(op.id)
      )
        continue
      // The activity checks each entry against the caller's scopes instead (docs/api/activity.md).
      if (op.id === 'activity.list' || op.id === 'activity.undo') {
        expect(doc.paths[op.path]![op.method.toLowerCase()]!.description).toContain(
          'Any valid API key may call it.',
        )
        continue
      }
      expect(op.scope, op.label).toBeDefined()
      const stated = /Requires scope `([^`]+)`/.exec(
        doc.paths[op.path]![op.method.toLowerCase()]!.description ?? '',
      )?.[1]
      expect(stated, `${op.label}: the description states the registry's scope`).toBe(op.scope)
    }
  })

  it('answers 401 UNAUTHENTICATED to a request with no key or an unknown one', async () => {
    const failures: string[] = []
    for (const op of ops) {
      const body = validBody(op, fieldValues(own))
      const req: Sent = {
        method: op.method,
        path: withQuery(fill(op, pathValues(own)), validQuery(op, fieldValues(own))),
        body: body === undefined ? undefined : JSON.stringify(body),
      }
      for (const token of [null, 'hk_live_not-a-real-key']) {
        const res = await send(token, req)
        const broken = problemsOf(req, res)
        if (op.id === 'system.health' || op.id === 'system.ready') {
          if (res.status !== 200) broken.push(`the public ${op.id} check answered ${res.status}`)
        } else if (op.id === 'oidc.provider') {
          // Public: whether a provider signs people in.
          if (res.status !== 200) broken.push(`the public provider answered ${res.status}`)
        } else if (op.id === 'sessions.passkeyOptions') {
          // Public: a passkey sign-in's challenge, before anyone is known.
          if (res.status !== 200) broken.push(`the passkey challenge answered ${res.status}`)
        } else if (op.id === 'sessions.createWithPasskey') {
          // Public: the passkey's answer is the credential, whatever the header says; the fuzz's is none.
          if (res.status !== 400 || res.json?.code !== 'WEBAUTHN_RESPONSE_INVALID')
            broken.push(`answered ${res.status} ${res.json?.code}, not 400 WEBAUTHN_RESPONSE_INVALID`)
        } else if (
          [
            'signInLinks.redeem',
            'signInLinks.passkeyOptions',
            'invitations.passkeyOptions',
            'emailVerifications.verify',
          ].includes(op.id)
        ) {
          // Public: a link's (a mailed verification link's too) or an invitation's code is its credential, whatever the header says; an
          // unknown one is a 404.
          if (res.status !== 404 || res.json?.code !== 'NOT_FOUND') broken.push(`answered ${res.status}`)
        } else if (op.id === 'invitations.redeem' && token === null) {
          // Without a key it is a new user's redemption: an unknown code is a 404, never a 401.
          if (res.status !== 404 || res.json?.code !== 'NOT_FOUND') broken.push(`answered ${res.status}`)
        } else if (res.status !== 401 || res.json?.code !== 'UNAUTHENTICATED') {
          broken.push(`answered ${res.status} ${res.json?.code}, not 401 UNAUTHENTICATED`)
        }
        if (broken.length > 0) failures.push(`${op.label} (token ${token}): ${broken.join('; ')}`)
      }
    }
    expect(failures).toEqual([])
  })

  it("answers 404 for a household the caller is not in, or for another household's rows, and changes nothing there", async () => {
    const failures: string[] = []
    // The victim's own setup left events in the outbox, and the notifications one of them calls
    // for are written by a mutation of their own, which moves the household's clock: wait for
    // them, so that only the fuzz could move it from here.
    await server.outboxSettled(victim.householdId)
    const before = await stateOf(victim)
    const check = async (op: Op, what: string, req: Sent, expectStatus: (status: number) => boolean) => {
      const res = await send(caller.api.token, req)
      const broken = problemsOf(req, res)
      if (!expectStatus(res.status))
        broken.push(`answered ${res.status} ${res.json?.code ?? res.text.slice(0, 200)}`)
      if (broken.length > 0) failures.push(`${op.label} with ${what}: ${broken.join('; ')}`)
    }
    for (const op of ops) {
      // The health check is public and names no household.
      if (op.id === 'system.health' || op.id === 'system.ready') continue
      const foreignFields = fieldValues(victimRows)
      const body = (rows: Record<string, string | string[]>) => {
        const b = validBody(op, rows)
        return b === undefined ? undefined : JSON.stringify(b)
      }
      if (op.pathParams.includes('householdId')) {
        // The other household, named with its own rows.
        await check(
          op,
          'a foreign household',
          {
            method: op.method,
            path: withQuery(fill(op, pathValues(victimRows)), validQuery(op, foreignFields)),
            body: body(foreignFields),
          },
          (s) => s === 404,
        )
        // A household that does not exist.
        const nowhere = { ...pathValues(own), householdId: ulid() }
        await check(
          op,
          'a random household',
          {
            method: op.method,
            path: withQuery(fill(op, nowhere), validQuery(op, fieldValues(own))),
            body: body(fieldValues(own)),
          },
          (s) => s === 404,
        )
      }
      // The caller's own household, or its own user, pointing at the other household's rows.
      const rowParams = op.pathParams.filter(
        (p) =>
          ![
            'householdId',
            'fromCurrency',
            'toCurrency',
            'yearMonth',
            'sourceYearMonth',
            'effectiveDate',
          ].includes(p),
      )
      if (rowParams.length > 0) {
        const mixed = {
          ...pathValues(own),
          ...Object.fromEntries(rowParams.map((p) => [p, pathValues(victimRows)[p]!])),
        }
        await check(
          op,
          "the other household's row in the path",
          {
            method: op.method,
            path: withQuery(fill(op, mixed), validQuery(op, fieldValues(own))),
            body: body(fieldValues(own)),
          },
          (s) => s === 404,
        )
      }
      // A body or query that names the other household's rows is refused, never applied.
      const ownBody = validBody(op, fieldValues(own))
      const foreignBody = validBody(op, { ...foreignFields, householdId: foreignFields.householdId! })
      const foreignQuery = validQuery(op, foreignFields)
      const namesForeign =
        secrets.some((s) => JSON.stringify(foreignBody ?? '').includes(s)) ||
        foreignQuery.some(([, v]) => secrets.includes(v))
      if (namesForeign && (ownBody !== undefined || foreignQuery.length > 0)) {
        await check(
          op,
          "the other household's rows in the body or query",
          {
            method: op.method,
            path: withQuery(fill(op, pathValues(own)), foreignQuery),
            body: foreignBody === undefined ? undefined : JSON.stringify(foreignBody),
          },
          (s) => s >= 400 && s < 500,
        )
      }
    }
    expect(failures).toEqual([])
    expect(await stateOf(victim), 'nothing changed in the other household').toBe(before)
  })

  it('answers 403 INSUFFICIENT_SCOPE to a key without the operation’s scope, and a write changes nothing', async () => {
    const failures: string[] = []
    const keys = new Map<Scope, string>()
    for (const op of ops) {
      // Only the public health check has no scope.
      if (!op.scope) continue
      let token = keys.get(op.scope)
      if (!token) {
        token = await server.issueKey(
          caller.userId,
          SCOPES.filter((s) => s !== op.scope),
        )
        keys.set(op.scope, token)
      }
      const body = validBody(op, fieldValues(own))
      const req: Sent = {
        method: op.method,
        path: withQuery(fill(op, pathValues(own)), validQuery(op, fieldValues(own))),
        body: body === undefined ? undefined : JSON.stringify(body),
      }
      const before = await stateOf(caller)
      const res = await send(token, req)
      const broken = problemsOf(req, res)
      if (res.status !== 403 || res.json?.code !== 'INSUFFICIENT_SCOPE') {
        broken.push(`answered ${res.status} ${res.json?.code}, not 403 INSUFFICIENT_SCOPE`)
      }
      if (op.method !== 'GET' && (await stateOf(caller)) !== before)
        broken.push('the write changed the store')
      if (broken.length > 0) failures.push(`${op.label}: ${broken.join('; ')}`)
    }
    expect(failures).toEqual([])
  })

  it('sweeps every field and parameter: a wrong type is a 400 naming the field, hostile text never a 5xx', async () => {
    const failures: string[] = []
    const attempt = async (
      op: Op,
      what: string,
      req: Sent,
      expected?: (res: Answer) => string | null,
      token: string | null = caller.api.token,
    ) => {
      const res = await send(token, req).catch((error: Error) => error)
      if (res instanceof Error) {
        failures.push(`${op.label} ${what}: no answer (${res.message})`)
        return
      }
      const broken = problemsOf(req, res)
      const wrong = expected?.(res)
      if (wrong) broken.push(wrong)
      if (broken.length > 0) failures.push(`${op.label} ${what}: ${broken.join('; ')}`)
    }
    for (const op of ops) {
      await freshRows(op)
      const rows = fieldValues(own)
      const values = pathValues(own)
      const query = validQuery(op, rows)
      const path = withQuery(fill(op, values), query)
      // The operation as its document shapes it, over the extreme rows of the seed.
      const valid = validBody(op, rows)
      // The valid body with `key` added as JSON.parse would add it: `__proto__` as an own key.
      const withKey = (key: string) =>
        `${JSON.stringify(valid ?? {}).slice(0, -1)}${valid && Object.keys(valid).length > 0 ? ',' : ''}${JSON.stringify(key)}:1}`
      await attempt(op, 'as documented', {
        method: op.method,
        path,
        body: valid === undefined ? undefined : JSON.stringify(valid),
      })
      if (op.write) {
        for (const { path: at, schema } of bodyFields(op)) {
          const field = at.join('.')
          const body = (value: unknown) => JSON.stringify(setPath(validBody(op, rows), at, value))
          // A sync push answers each mutation's refusal in its 200; its arguments are not the body's.
          if (!takesAnything(schema) && !at.includes('args')) {
            await attempt(
              op,
              `${field} of a wrong type`,
              { method: op.method, path, body: body(wrongType(schema)) },
              (res) => {
                const named = (res.json?.errors ?? []).some((e: { path: string }) =>
                  e.path.startsWith(at[0]!),
                )
                return res.status === 400 && named ? null : `answered ${res.status} without naming ${field}`
              },
            )
          }
          for (const value of extremesOf(schema)) {
            await attempt(op, `${field} = ${value}`, { method: op.method, path, body: body(value) })
          }
          for (const text of SWEEP_TEXT) {
            await attempt(op, `${field} = ${JSON.stringify(text.slice(0, 20))}`, {
              method: op.method,
              path,
              body: body(text),
            })
          }
        }
      }
      // An unknown key is refused by name, a key of Object.prototype like any other.
      const unknown = (key: string) => (res: Answer) =>
        res.status === 400 &&
        (res.json?.errors ?? []).some(
          (e: { path: string; code: string; message: string }) =>
            e.path === key && e.code === 'unknown_field' && e.message.includes(key),
        )
          ? null
          : `answered ${res.status} without refusing ${key} as unknown: ${res.text.slice(0, 200)}`
      for (const key of PROTOTYPE_KEYS) {
        await attempt(
          op,
          `?${key}=1`,
          {
            method: op.method,
            path: withQuery(fill(op, values), [...query, [key, '1']]),
            body: valid === undefined ? undefined : JSON.stringify(valid),
          },
          unknown(key),
        )
        // A body of any keys (preferences) is the one place such a key is not unknown.
        if (op.write && (!op.body || resolve(op.body).additionalProperties === false)) {
          await attempt(
            op,
            `a body field ${key}`,
            { method: op.method, path, body: withKey(key) },
            unknown(key),
          )
        }
      }
      if (op.write) {
        // A large body refused before it is read (no key; no Content-Type) must leave the
        // connection usable: the next request on it is the next attempt.
        const large = JSON.stringify({ ...validBody(op, rows), padding: 'x'.repeat(300_000) })
        await attempt(
          op,
          'a large body and no key',
          { method: op.method, path, body: large },
          undefined,
          null,
        )
        await attempt(op, 'a large body with no Content-Type', {
          method: op.method,
          path,
          body: large,
          contentType: null,
        })
      }
      for (const { name } of op.query) {
        for (const value of SWEEP_QUERY) {
          const pairs = [...query.filter(([k]) => k !== name), [name, value] as const]
          await attempt(op, `?${name}=${value.slice(0, 20)}`, {
            method: op.method,
            path: withQuery(fill(op, values), pairs, true),
            body: op.write ? JSON.stringify(validBody(op, rows)) : undefined,
          })
        }
      }
      for (const param of op.pathParams) {
        for (const segment of SWEEP_SEGMENTS) {
          const hostile = op.path.replace(/\{(\w+)\}/g, (_, p: string) =>
            p === param ? segment : encodeURIComponent(values[p] ?? ''),
          )
          await attempt(
            op,
            `{${param}} = ${segment.slice(0, 20)}`,
            {
              method: op.method,
              path: withQuery(hostile, query),
              body: op.write ? JSON.stringify(validBody(op, rows)) : undefined,
            },
            // `current` is a household's other name, and a `..` segment is resolved as URLs resolve
            // it (`/transactions/../tags/T` is `/tags/T`), so either may succeed; no other segment names a row.
            (res) =>
              res.status >= 400 ||
              (param === 'householdId' && segment === 'current') ||
              DOT_SEGMENTS.includes(segment)
                ? null
                : `answered ${res.status} to a path no row has`,
          )
        }
      }
    }
    expect(failures).toEqual([])
    // Thousands of requests: 137 s on a loaded machine (each operation 0.05 to 4 s), past 120 s.
  }, 300_000)

  it('never answers hostile bodies, path parameters or query strings with a 5xx, a non-JSON body or a leak', async () => {
    const failures: string[] = []
    for (const op of ops) {
      await freshRows(op)
      const details = await fc.check(
        fc.asyncProperty(casesFor(op), async (c) => {
          const req = requestFor(op, c)
          const res = await send(caller.api.token, req).catch((error: Error) => {
            throw new Error(`${describeSent(req)}\n  no answer: ${error.message}`)
          })
          expectClean(req, res)
        }),
        {
          numRuns: RUNS,
          seed: SEED ^ hash(op.id),
          interruptAfterTimeLimit: TIME_LIMIT_MS,
          markInterruptAsFailure: false,
        },
      )
      if (details.failed) {
        const error =
          details.errorInstance instanceof Error
            ? details.errorInstance.message
            : String(details.errorInstance)
        failures.push(
          `${op.label} (seed ${details.seed}, path ${details.counterexamplePath}):\n  ${error.slice(0, 1500)}`,
        )
      }
    }
    expect(failures).toEqual([])
  }, 360_000)
})
