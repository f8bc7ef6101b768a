/**
 * The Node entry of @hearth/client: a store may be a folder (PGlite data plus an fsynced queue
 * file, locked against a second process), and sockets come from the `ws` package.
 */
import { join } from 'node:path'
import { openPGliteStore } from '@hearth/engine'
import { lockDataDir } from '@hearth/engine/data-dir-lock'
import WebSocket from 'ws'
import { DEVICE_SHARED_BUFFERS } from './device-store.ts'
import { createHearthWith, type Hearth, type HearthOptions, type HearthPlatform } from './hearth.ts'
import { FileQueue } from './node/file-queue.ts'
import { openNoteFile } from './node/note-file-cache.ts'
import { openReplicaFolder } from './node/replica-folder.ts'
import { MemoryQueue } from './queue/mutation-queue.ts'
import type { SocketLike } from './sync-client.ts'

export { makeReplicaTemplate } from './browser-replica.ts'
export * from './index.ts'
export { FileQueue } from './node/file-queue.ts'

/**
 * Node's platform: `memory://` or a folder holding `pgdata/` and `queue.jsonl`. A `pgdata/` that
 * is torn (a power cut) is moved aside and rebuilt from the server; the queue replays onto it.
 */
export const nodePlatform: HearthPlatform = {
  async openStore(location) {
    if (location === 'memory://')
      return openPGliteStore({ dataDir: location, sharedBuffers: DEVICE_SHARED_BUFFERS })
    const release = lockDataDir(location)
    try {
      const { store } = await openReplicaFolder(join(location, 'pgdata'), (dataDir) =>
        openPGliteStore({ dataDir, sharedBuffers: DEVICE_SHARED_BUFFERS }),
      )
      return {
        ...store,
        async close() {
          await store.close()
          release()
        },
      }
    } catch (error) {
      release()
      throw error
    }
  },
  openQueue: async (location) =>
    location === 'memory://' ? new MemoryQueue() : FileQueue.open(join(location, 'queue.jsonl')),
  socket: (url) => new WebSocket(url) as unknown as SocketLike,
  noteCache: (location, name, doc) => (location === 'memory://' ? null : openNoteFile(location, name, doc)),
  noteSocket: WebSocket,
}

/** Opens a household replica on this device and starts syncing it. */
export function createHearth(options: HearthOptions): Promise<Hearth> {
  return createHearthWith(nodePlatform, options)
}
