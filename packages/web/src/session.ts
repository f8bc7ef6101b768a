import { createHearth, type Hearth } from '@hearth/client'

/** What this browser remembers after sign-in (localStorage): enough to open the replica offline. */
export interface Session {
  serverUrl: string
  token: string
  householdId: string
  householdName: string
  /** The IndexedDB store of this sign-in's replica (`idb://…`). */
  store: string
  deviceName: string
}

const KEY = 'hearth.session'

export function loadSession(): Session | null {
  try {
    const raw = localStorage.getItem(KEY)
    return raw ? (JSON.parse(raw) as Session) : null
  } catch {
    return null
  }
}

export function saveSession(session: Session): void {
  localStorage.setItem(KEY, JSON.stringify(session))
}

export function forgetSession(): void {
  localStorage.removeItem(KEY)
}

/**
 * Opens the household's replica in IndexedDB and starts syncing. With the household's id (not
 * `current`), a replica already on the device opens without the network.
 */
export function openHearth(session: Session): Promise<Hearth> {
  return createHearth({
    serverUrl: session.serverUrl,
    token: session.token,
    household: session.householdId,
    store: session.store,
    deviceName: session.deviceName,
  })
}

/** A refusal from the server, with its problem+json `code` and `detail`. */
export class ServerRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

async function call<T>(serverUrl: string, path: string, init: RequestInit & { token?: string }): Promise<T> {
  let response: Response
  try {
    response = await fetch(new URL(path, serverUrl), {
      ...init,
      headers: {
        'content-type': 'application/json',
        ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      },
    })
  } catch {
    throw new ServerRefusal(0, 'UNREACHABLE', `The server at ${serverUrl} cannot be reached.`)
  }
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>
  if (!response.ok) {
    throw new ServerRefusal(
      response.status,
      String(body.code ?? `HTTP_${response.status}`),
      String(body.detail ?? body.title ?? response.statusText),
    )
  }
  return body as T
}

export interface MyHousehold {
  id: string
  name: string
  role: 'owner' | 'member'
  baseCurrency: string
}

/** The households the key's user belongs to. */
export async function listHouseholds(serverUrl: string, token: string): Promise<MyHousehold[]> {
  const { items } = await call<{ items: MyHousehold[] }>(serverUrl, '/households', { method: 'GET', token })
  return items
}

/** Redeems an invitation code as a new user; answers the new key and the household joined. */
export async function redeemInvitation(
  serverUrl: string,
  code: string,
  name: string,
): Promise<{ token: string; household: MyHousehold }> {
  const result = await call<{ household: MyHousehold; apiKey: { key: string } }>(
    serverUrl,
    '/invitations/redeem',
    {
      method: 'POST',
      body: JSON.stringify({ code, name, keyName: 'Hearth web app' }),
    },
  )
  return { token: result.apiKey.key, household: result.household }
}

/** A new store name for a sign-in, so two people signing in on one browser never share a replica. */
export function newStoreName(householdId: string): string {
  const random = crypto.getRandomValues(new Uint8Array(6))
  return `idb://hearth-${householdId}-${[...random].map((b) => b.toString(16).padStart(2, '0')).join('')}`
}
