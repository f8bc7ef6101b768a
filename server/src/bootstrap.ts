import { newUlid, operations, runMutation, SCOPES, type Store } from '@hearth/engine'
import { mintApiKey } from './auth/api-key-token.ts'
import { mintLinkCode } from './auth/session-token.ts'
import { type FirstStartSettings, firstStartSettings } from './first-start-settings.ts'

/** What first start created; `token` is the only copy of the owner's key. */
export interface Bootstrap {
  userId: string
  householdId: string
  token: string
  /** The one-time setup link's code (`/app/setup?code=…`, 24 h), where the owner sets a password. */
  setupCode: string
  /** The household's currency and time zone, and where each came from. */
  settings: FirstStartSettings
}

/** How long the first start's setup link works. */
export const SETUP_LINK_HOURS = 24

/**
 * On an empty store, creates an owner, their household and an all-scopes key, so a new user
 * can call the API at once, and a one-time setup link where the owner sets a password. `initToken` (HEARTH_INIT_OWNER_TOKEN) fixes the key for automation;
 * the household's currency and time zone come from `init` or the machine (first-start-settings.ts).
 * Returns null when the store already has users.
 */
export async function bootstrapOwner(
  store: Store,
  initToken?: string,
  init: { currency?: string; timeZone?: string } = {},
): Promise<Bootstrap | null> {
  const existing = await store.db.selectFrom('users').select('id').limit(1).executeTakeFirst()
  if (existing) return null
  const userId = newUlid()
  const householdId = newUlid()
  const actor = { userId, scopes: [...SCOPES], now: new Date() }
  const settings = firstStartSettings(init)
  await runMutation(store.db, operations.users.create, { id: userId, name: 'Owner' }, actor)
  await runMutation(
    store.db,
    operations.households.create,
    { id: householdId, name: 'My household', baseCurrency: settings.currency, timeZone: settings.timeZone },
    { ...actor, householdId, role: 'owner' },
  )
  const key = mintApiKey(initToken)
  await runMutation(
    store.db,
    operations.apiKeys.create,
    {
      id: newUlid(),
      name: 'Owner key (first start)',
      scopes: [...SCOPES],
      keyHash: key.hash,
      prefix: key.prefix,
    },
    actor,
  )
  const setup = mintLinkCode()
  await runMutation(
    store.db,
    operations.signInLinks.issue,
    {
      id: newUlid(),
      purpose: 'setup',
      codeHash: setup.hash,
      expiresAt: new Date(Date.now() + SETUP_LINK_HOURS * 3_600_000).toISOString(),
    },
    actor,
  )
  return { userId, householdId, token: key.token, setupCode: setup.token, settings }
}
