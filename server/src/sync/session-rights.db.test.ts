import { operations, runMutation, SCOPES, type Store } from '@hearth/engine'
import { newHousehold, sharedStore } from '@hearth/test/store'
import { sql } from 'kysely'
import pino from 'pino'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { mintApiKey } from '../auth/api-key-token.ts'
import {
  type CurrentRights,
  type GuardedSession,
  RightsWatch,
  readRightsClock,
  type SessionHolder,
} from './session-rights.ts'

/** A live session as the watch sees it, keeping every rights read it was handed. */
class Session implements GuardedSession {
  readonly reads: CurrentRights[] = []
  constructor(readonly holder: SessionHolder) {}
  suspend(): void {}
  applyRights(rights: CurrentRights): void {
    this.reads.push(rights)
  }
  get revoked(): boolean {
    return this.reads.at(-1)?.scopes === null
  }
}

/** A session of a new household's owner on a key of its own. */
async function newSession(store: Store): Promise<Session> {
  const ctx = await newHousehold(store)
  const minted = mintApiKey()
  const keyId = ulid()
  await runMutation(
    store.db,
    operations.apiKeys.create,
    { id: keyId, name: 'device', scopes: [...ctx.scopes], keyHash: minted.hash, prefix: minted.prefix },
    { userId: ctx.userId, scopes: [...SCOPES], now: new Date() },
  )
  return new Session({ keyId, userId: ctx.userId, householdId: ctx.householdId })
}

/** A watch that looks only when told to (no timer), over `sessions`. */
function watchOver(store: Store, sessions: Session[], cycleMs: number): RightsWatch {
  return new RightsWatch(store, () => sessions, { recheckMs: 0, cycleMs, logger: pino({ level: 'silent' }) })
}

const HOUR = 3_600_000

describe('the rights watch behind the notifications', () => {
  it('moves the rights clock when a change to rights commits, and not before', async () => {
    const store = await sharedStore()
    const session = await newSession(store)
    await store.db.transaction().execute(async (tx) => {
      const before = await readRightsClock(tx)
      await tx
        .updateTable('api_keys')
        .set({ revoked_at: new Date() })
        .where('id', '=', session.holder.keyId)
        .execute()
      // Deferred to the commit: the transaction holds no lock on the clock until then.
      expect(await readRightsClock(tx)).toBe(before)
    })
    const after = await readRightsClock(store.db)
    await store.db
      .updateTable('api_keys')
      .set({ last_used_at: new Date() })
      .where('id', '=', session.holder.keyId)
      .execute()
    // A key's use is not a change to rights.
    expect(await readRightsClock(store.db)).toBe(after)
  })

  it('reads every session again when the clock moved, though no announcement reached it', async () => {
    const store = await sharedStore()
    const session = await newSession(store)
    const watch = watchOver(store, [session], HOUR)
    await watch.look()
    expect(session.reads).toHaveLength(1)
    expect(session.revoked).toBe(false)
    // Committed with its triggers: the announcement goes out, but this watch listens to nothing.
    await store.db
      .updateTable('api_keys')
      .set({ revoked_at: new Date() })
      .where('id', '=', session.holder.keyId)
      .execute()
    await watch.look()
    expect(session.revoked).toBe(true)
  })

  it('reads a session again within the cycle when a change moved no clock', async () => {
    const store = await sharedStore()
    const session = await newSession(store)
    const watch = watchOver(store, [session], 100)
    await watch.look()
    // Made with triggers off: no announcement, no clock.
    await store.db.transaction().execute(async (tx) => {
      await sql`set local session_replication_role = replica`.execute(tx)
      await tx
        .updateTable('api_keys')
        .set({ revoked_at: new Date() })
        .where('id', '=', session.holder.keyId)
        .execute()
    })
    await new Promise((resolve) => setTimeout(resolve, 120))
    await watch.look()
    expect(session.revoked).toBe(true)
  })

  it('reads a session again once its dated key has ended', async () => {
    const store = await sharedStore()
    const session = await newSession(store)
    await store.db
      .updateTable('api_keys')
      .set({ expires_at: new Date(Date.now() + 300) })
      .where('id', '=', session.holder.keyId)
      .execute()
    const watch = watchOver(store, [session], HOUR)
    await watch.look()
    expect(session.revoked).toBe(false)
    await new Promise((resolve) => setTimeout(resolve, 350))
    await watch.look()
    expect(session.revoked).toBe(true)
  })
})
