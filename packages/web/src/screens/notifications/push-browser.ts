import { type ServerAccess, serverCall } from '../../server-calls.ts'

/** What this browser remembers of its push subscription: the server's id for it, to remove it. */
interface KeptSubscription {
  id: string
  endpoint: string
}
const KEY = 'hearth.pushSubscription'

/** The subscription this browser remembers registering, whether or not it is still subscribed. */
function readKept(): KeptSubscription | null {
  return JSON.parse(localStorage.getItem(KEY) ?? 'null') as KeptSubscription | null
}

/** Whether this browser can take Web Push at all (a service worker, the Push API, notifications). */
export function pushSupported(): boolean {
  return 'serviceWorker' in navigator && 'PushManager' in globalThis && 'Notification' in globalThis
}

/** The app's service worker registration, or null when none is active (Vite's dev server has none). */
async function registration(): Promise<ServiceWorkerRegistration | null> {
  const ready = navigator.serviceWorker.ready
  const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), 10_000))
  return Promise.race([ready, timeout])
}

/** This browser's subscription as the server knows it, if it is still subscribed. */
export async function keptSubscription(): Promise<KeptSubscription | null> {
  const kept = readKept()
  if (!kept || !pushSupported()) return null
  const current = await (await registration())?.pushManager.getSubscription()
  return current?.endpoint === kept.endpoint ? kept : null
}

/**
 * Subscribes this browser with the server's VAPID key through the service worker, and registers
 * the subscription (`POST /users/me/push-subscriptions`, with the endpoint and keys; the server
 * would also take the `expirationTime` of `toJSON()`, and keeps none). Throws in words when the
 * browser or the member says no.
 */
export async function subscribeThisBrowser(
  access: ServerAccess,
  vapidPublicKey: string,
): Promise<KeptSubscription> {
  const permission = await Notification.requestPermission()
  if (permission !== 'granted') {
    throw new Error(
      'This browser does not allow notifications from Hearth; allow them in its site settings first.',
    )
  }
  const reg = await registration()
  if (!reg) throw new Error('The app’s service worker is not running here, so push cannot be set up.')
  let subscription: PushSubscription
  try {
    subscription = await reg.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: fromBase64Url(vapidPublicKey),
    })
  } catch (e) {
    throw new Error(`This browser could not subscribe to push: ${(e as Error).message || String(e)}`)
  }
  const json = subscription.toJSON()
  const saved = await serverCall<{ id: string; endpoint: string }>(
    access,
    'POST',
    '/users/me/push-subscriptions',
    {
      body: { endpoint: json.endpoint, keys: { p256dh: json.keys?.p256dh, auth: json.keys?.auth } },
    },
  )
  const kept = { id: saved.id, endpoint: saved.endpoint }
  localStorage.setItem(KEY, JSON.stringify(kept))
  return kept
}

/** Unsubscribes this browser and removes its subscription from the server. */
export async function unsubscribeThisBrowser(access: ServerAccess, kept: KeptSubscription): Promise<void> {
  await serverCall(access, 'DELETE', `/users/me/push-subscriptions/${kept.id}`)
  await (await (await registration())?.pushManager.getSubscription())?.unsubscribe()
  localStorage.removeItem(KEY)
}

/**
 * Signing out: this browser stops getting the person's pushes (a shared browser would otherwise
 * show the last person's notifications to the next). Best effort, while the session still works.
 */
export async function forgetPushOnSignOut(access: ServerAccess): Promise<void> {
  const kept = readKept()
  if (!kept) return
  localStorage.removeItem(KEY)
  await serverCall(access, 'DELETE', `/users/me/push-subscriptions/${kept.id}`).catch(() => {})
  if (pushSupported()) await (await (await registration())?.pushManager.getSubscription())?.unsubscribe()
}

/** A VAPID public key (base64url) as the bytes `applicationServerKey` takes. */
export function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  const base64 = text
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(text.length / 4) * 4, '=')
  const raw = atob(base64)
  const bytes = new Uint8Array(new ArrayBuffer(raw.length))
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i)
  return bytes
}
