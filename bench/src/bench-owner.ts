import { type HouseholdContext, operations, runMutation, SCOPES, type Store } from '@hearth/engine'
import { mintApiKey } from '@hearth/server'
import { monotonicFactory } from 'ulidx'

const id = monotonicFactory()

/** A user who owns a new household, with an all-scope API key: where a REST bench starts. */
export interface BenchOwner {
  userId: string
  householdId: string
  token: string
  ctx: HouseholdContext
}

/** Makes a user, their household (`name`, in `baseCurrency`) and an all-scope key, through the engine. */
export async function newBenchOwner(store: Store, name = 'Bench', baseCurrency = 'USD'): Promise<BenchOwner> {
  const userId = id()
  const householdId = id()
  const actor = { userId, scopes: [...SCOPES], now: new Date() }
  const ctx: HouseholdContext = { ...actor, householdId, role: 'owner' }
  await runMutation(store.db, operations.users.create, { id: userId, name: `${name} owner` }, actor)
  await runMutation(store.db, operations.households.create, { id: householdId, name, baseCurrency }, ctx)
  return { userId, householdId, token: await newBenchKey(store, userId), ctx }
}

/** Another all-scope key of `userId`: a program's, as each writer of a load is (limits are per key). */
export async function newBenchKey(store: Store, userId: string): Promise<string> {
  const minted = mintApiKey()
  await runMutation(
    store.db,
    operations.apiKeys.create,
    { id: id(), name: 'bench', scopes: [...SCOPES], keyHash: minted.hash, prefix: minted.prefix },
    { userId, scopes: [...SCOPES], now: new Date() },
  )
  return minted.token
}
