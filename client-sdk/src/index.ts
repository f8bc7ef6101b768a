/**
 * @hearth/client: a household replica on the device, on the same engine as the server, that
 * answers at once online or offline and syncs over one WebSocket. This entry imports nothing
 * Node-only; Node resolves `@hearth/client` to `node.ts`, which adds folders and fsync.
 */
import { openPGliteStore } from '@hearth/engine'
import { openBrowserReplica } from './browser-replica.ts'
import { DEVICE_SHARED_BUFFERS } from './device-store.ts'
import { createHearthWith, type Hearth, type HearthOptions, type HearthPlatform } from './hearth.ts'
import { openNoteIdb } from './note-idb-cache.ts'
import { IdbQueue } from './queue/idb-queue.ts'
import { MemoryQueue } from './queue/mutation-queue.ts'
import type { SocketLike } from './sync-client.ts'

/** `ulid()` makes a new random ULID, for ids an app makes before it calls `mutate`. */
/** The starter categories, for an app that lets a household edit them before creating them. */
/** The scopes a key can carry and the event types a webhook can ask for, for settings screens. */
export {
  EngineError,
  EVENT_TYPES,
  newUlid as ulid,
  SCOPES,
  type Scope,
  STARTER_PACK,
  type StarterGroup,
  starterPackLanguage,
} from '@hearth/engine'
export * from './ai.ts'
export {
  type CredentialStore,
  type DeviceCredential,
  type DeviceCredentialOptions,
  type DeviceSignIn,
  signInDevice,
} from './device-credential.ts'
export * from './emitter.ts'
export * from './hearth.ts'
export * from './hearth-error.ts'
export * from './notes.ts'
export type { PresenceEntry } from './presence.ts'
export * from './queue/idb-queue.ts'
export * from './queue/mutation-queue.ts'
export type { PendingMutation, ReplicaIdentity } from './replica.ts'
export * from './sync-client.ts'

/**
 * The browser platform: PGlite in memory, or (`idb://name`) in memory with its files kept as
 * blocks in IndexedDB (`hearth-replica:name`, one tab at a time: browser-replica.ts), the
 * durable queue in IndexedDB beside it (`hearth-queue:name`), and the global WebSocket.
 */
export const browserPlatform: HearthPlatform = {
  openStore: async (location, opening) =>
    location.startsWith('idb://')
      ? (await openBrowserReplica(location.slice('idb://'.length), opening?.template)).store
      : openPGliteStore({ dataDir: location, sharedBuffers: DEVICE_SHARED_BUFFERS }),
  openQueue: async (location) =>
    location.startsWith('idb://')
      ? IdbQueue.open(`hearth-queue:${location.slice('idb://'.length)}`)
      : new MemoryQueue(),
  socket: typeof WebSocket === 'undefined' ? undefined : (url) => new WebSocket(url) as unknown as SocketLike,
  noteCache: openNoteIdb,
  noteSocket: typeof WebSocket === 'undefined' ? undefined : WebSocket,
}

/** Opens a household replica on this device and starts syncing it. */
export function createHearth(options: HearthOptions): Promise<Hearth> {
  return createHearthWith(browserPlatform, options)
}
