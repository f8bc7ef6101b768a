import type { Role, Scope } from '@hearth/engine'
import type { RunningServer, ServerConfig } from '@hearth/server'
import { afterAll, beforeAll } from 'vitest'
import {
  isolatedStore,
  issueKey,
  newMember,
  newOwner,
  startTestServer,
  type TestMember,
} from './http-fixture.ts'

/**
 * The server of one test file: every field of the running server, read through to whichever
 * instance is current, plus the helpers that make members of it.
 */
export interface TestServer extends RunningServer {
  /** A user who owns a new household, with a key of `scopes` (all by default). */
  newOwner(scopes?: readonly Scope[]): Promise<TestMember>
  /** A new user in `owner`'s household with `role`, and a key of `scopes`. */
  newMember(owner: TestMember, role?: Role, scopes?: readonly Scope[]): Promise<TestMember>
  /** A key for `userId`, issued through the engine as the CLI does. */
  issueKey(userId: string, scopes: readonly Scope[]): Promise<string>
  /** Stops the server and starts another on the same port and store, as a restart would. */
  restart(): Promise<void>
  /**
   * Waits until the outbox holds nothing pending for a household: its events fanned out, and the
   * notifications they call for written (by a mutation of their own, which moves its clock).
   */
  outboxSettled(householdId: string, timeoutMs?: number): Promise<void>
}

/**
 * Starts a server on this worker's shared store before the file's tests and stops it after them.
 * Call it at the top level of a test file; the handle fills in once `beforeAll` has run.
 * `config` overrides the test defaults (a random port on 127.0.0.1). `isolated` gives the server a
 * store of its own (`isolatedStore`) instead of the worker's shared one.
 */
export function useTestServer(
  config: Partial<ServerConfig> = {},
  options: { isolated?: boolean } = {},
): TestServer {
  let running: RunningServer | undefined
  let isolated: Awaited<ReturnType<typeof isolatedStore>> | undefined
  const start = (extra: Partial<ServerConfig> = {}) =>
    startTestServer({ ...config, ...isolated?.config, ...extra }, { ownStore: Boolean(isolated) })
  const current = (): RunningServer => {
    if (!running) throw new Error('useTestServer: the server starts in beforeAll; use it inside a test.')
    return running
  }
  beforeAll(async () => {
    if (options.isolated) isolated = await isolatedStore()
    running = await start()
  })
  afterAll(async () => {
    await running?.close()
    await isolated?.drop()
  })
  const helpers: Omit<TestServer, keyof RunningServer> = {
    newOwner: (scopes) => newOwner(current(), scopes),
    newMember: (owner, role, scopes) => newMember(current(), owner, role, scopes),
    issueKey: (userId, scopes) => issueKey(current(), userId, scopes),
    async restart() {
      const { port } = current()
      await current().close()
      running = await start({ port })
    },
    async outboxSettled(householdId, timeoutMs = 60_000) {
      const until = Date.now() + timeoutMs
      for (;;) {
        const pending = await current()
          .store.db.selectFrom('outbox')
          .select('id')
          .where('household_id', '=', householdId)
          .where('status', '=', 'pending')
          .limit(1)
          .execute()
        if (pending.length === 0) return
        if (Date.now() > until) throw new Error(`The outbox of ${householdId} still holds pending items.`)
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
    },
  }
  // Everything else reads through to the server of the moment, which a restart replaces.
  return new Proxy(helpers, {
    get: (target, key) =>
      typeof key === 'symbol' || key in target ? Reflect.get(target, key) : Reflect.get(current(), key),
  }) as TestServer
}
