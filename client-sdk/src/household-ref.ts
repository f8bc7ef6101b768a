import type { Store } from '@hearth/engine'
import { syncDb } from '@hearth/engine/sync'
import type { Credentials } from './device-credential.ts'
import { HearthError } from './hearth-error.ts'

/** What resolving `household: 'current'` needs. */
export interface HouseholdRefOptions {
  household: string
  serverUrl?: string
}

/**
 * The household id a replica opens: the id given, or for `current` (the caller's default
 * household, as in the REST paths) the id the server names at `GET /households/current`. A store
 * that already holds one household opens on it when the server cannot be reached; anything else
 * the server answers, or no server to ask, is refused with a `HearthError` saying so. `store`
 * opens the device's store, asked for only when the server cannot be reached: a wrong key or a
 * missing server is refused before a new store is made.
 */
export async function resolveHousehold(
  options: HouseholdRefOptions,
  credentials: Credentials,
  store: () => Promise<Store>,
): Promise<string> {
  if (options.household !== 'current') return options.household
  if (!options.serverUrl) {
    throw new HearthError(
      'HOUSEHOLD_UNRESOLVED',
      "household: 'current' needs serverUrl, since only the server knows your default household; pass a household id to open a replica without a server.",
    )
  }
  const url = `${options.serverUrl.replace(/\/$/, '')}/households/current`
  let response: Response
  try {
    response = await credentials.fetch(url)
  } catch (error) {
    const known = await householdsIn(await store())
    if (known.length === 1) return known[0]!
    throw new HearthError(
      'HOUSEHOLD_UNRESOLVED',
      `household: 'current' could not be resolved: ${url} did not answer (${(error as Error).message}), and this store holds no household yet. Connect once, or pass the household id.`,
    )
  }
  const body = (await response.json().catch(() => null)) as {
    id?: string
    code?: string
    detail?: string
    title?: string
  } | null
  if (response.ok && typeof body?.id === 'string') return body.id
  throw new HearthError(
    body?.code ?? 'HOUSEHOLD_UNRESOLVED',
    `household: 'current' could not be resolved: ${body?.detail ?? body?.title ?? `the server answered ${response.status}`}`,
    response.status,
  )
}

/** The households a store already holds a replica of; none before its first start. */
async function householdsIn(store: Store): Promise<string[]> {
  try {
    const rows = await syncDb(store.db).selectFrom('device_state').select('household_id').execute()
    return rows.map((r) => r.household_id)
  } catch {
    return []
  }
}
