import { operations, runMutation, SCOPES, type Scope } from '@hearth/engine'
import { loadConfig, mintApiKey, type RunningServer, type ServerConfig, startServer } from '@hearth/server'
import pino from 'pino'
import { ulid } from 'ulidx'
import { isolatedDatabase, sharedStore } from './store-fixture.ts'

/** A JSON answer from the test client. */
export interface ApiResponse<T = any> {
  status: number
  headers: Headers
  body: T
}

/** A tiny client bound to one server and one key, for tests that speak real HTTP. */
export interface ApiClient {
  token: string
  request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<ApiResponse<T>>
  get<T = any>(path: string): Promise<ApiResponse<T>>
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>
  patch<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>
  put<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>
  delete<T = any>(path: string): Promise<ApiResponse<T>>
}

/**
 * A store of its own for one test file (`isolatedDatabase`), as server settings. For a test whose
 * server must be the only one doing its store's background work (the outbox workers of every test
 * server on one PostgreSQL database claim each other's events). `drop` removes it.
 */
export async function isolatedStore(): Promise<{ config: Partial<ServerConfig>; drop(): Promise<void> }> {
  const own = await isolatedDatabase()
  return {
    config: own.databaseUrl ? { databaseUrl: own.databaseUrl } : { dataDir: own.dataDir!, durability: false },
    drop: () => own.drop(),
  }
}

/**
 * The webhook settings of every test server. Every test server shares its store's delivery queue,
 * so all send alike: to loopback receivers, retrying within a second, opening secrets with one key.
 */
export const TEST_WEBHOOKS: ServerConfig['webhooks'] = {
  ...loadConfig({}).webhooks,
  allowPrivate: true,
  secretKey: 'test-webhook-key',
  timeoutMs: 2000,
  retryScheduleMs: [100, 200, 400],
}

/** Starts the real server on a random port (unless `config` names one) over this worker's shared store. */
export async function startTestServer(
  config: Partial<ServerConfig> = {},
  options: { ownStore?: boolean } = {},
): Promise<RunningServer> {
  const store = options.ownStore ? undefined : await sharedStore()
  return startServer(
    {
      ...loadConfig({}),
      port: 0,
      host: '127.0.0.1',
      webhooks: TEST_WEBHOOKS,
      ...config,
    },
    { store, logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }) },
  )
}

/** Binds a client to a server URL and a bearer token (or none). */
export function apiClient(baseUrl: string, token: string | null): ApiClient {
  const request = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(token && { authorization: `Bearer ${token}` }),
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    })
    const text = await res.text()
    let parsed: unknown = text
    if (text && /json/.test(res.headers.get('content-type') ?? '')) parsed = JSON.parse(text)
    return { status: res.status, headers: res.headers, body: parsed as any }
  }
  return {
    token: token ?? '',
    request,
    get: (path) => request('GET', path),
    post: (path, body, headers) => request('POST', path, body, headers),
    patch: (path, body, headers) => request('PATCH', path, body, headers),
    put: (path, body, headers) => request('PUT', path, body, headers),
    delete: (path) => request('DELETE', path),
  }
}

/** A user with a key, in a household of their own, reached over HTTP. */
export interface TestMember {
  userId: string
  householdId: string
  api: ApiClient
}

/** Creates a user owning a new household, and a key with `scopes` (all by default). */
export async function newOwner(
  server: RunningServer,
  scopes: readonly Scope[] = SCOPES,
): Promise<TestMember> {
  const userId = ulid()
  const householdId = ulid()
  const actor = { userId, scopes: [...SCOPES], now: new Date() }
  await runMutation(server.store.db, operations.users.create, { id: userId, name: 'Owner' }, actor)
  await runMutation(
    server.store.db,
    operations.households.create,
    { id: householdId, name: 'Household' },
    { ...actor, householdId, role: 'owner' },
  )
  return { userId, householdId, api: apiClient(server.url, await issueKey(server, userId, scopes)) }
}

/** Adds a new user to an existing household with `role`, and gives them a key. */
export async function newMember(
  server: RunningServer,
  owner: TestMember,
  role: 'owner' | 'member' = 'member',
  scopes: readonly Scope[] = SCOPES,
): Promise<TestMember> {
  const userId = ulid()
  const now = new Date()
  await runMutation(
    server.store.db,
    operations.users.create,
    { id: userId, name: 'Member' },
    { userId, scopes: [...SCOPES], now },
  )
  await runMutation(
    server.store.db,
    operations.members.add,
    { userId, role },
    { userId: owner.userId, scopes: [...SCOPES], now, householdId: owner.householdId, role: 'owner' },
  )
  return {
    userId,
    householdId: owner.householdId,
    api: apiClient(server.url, await issueKey(server, userId, scopes)),
  }
}

/** Issues a key for a user directly through the engine, as the CLI does. */
export async function issueKey(
  server: RunningServer,
  userId: string,
  scopes: readonly Scope[],
): Promise<string> {
  const minted = mintApiKey()
  await runMutation(
    server.store.db,
    operations.apiKeys.create,
    { id: ulid(), name: 'test key', scopes: [...scopes], keyHash: minted.hash, prefix: minted.prefix },
    { userId, scopes: [...SCOPES], now: new Date() },
  )
  return minted.token
}
