import * as authProtocol from 'y-protocols/auth'
import { Awareness } from 'y-protocols/awareness'
import { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import { Emitter } from './emitter.ts'

/** What a shared note hangs on. */
export interface NoteTarget {
  kind: 'account' | 'category' | 'month' | 'transaction'
  /** The account, category or transaction id, or the month as `YYYY-MM`. */
  id: string
}

/** The one shared type of a note's document: plain text under this name (the server refuses others). */
export const NOTE_TEXT_NAME = 'text'

/** A note's document kept on the device, so it opens offline and keeps offline edits. */
export interface NoteCache {
  /** Resolves once the cached document is in the Y.Doc. */
  readonly whenLoaded: Promise<void>
  /** Stops caching (what is cached stays). */
  close(): Promise<void>
  /** Stops caching and forgets the cached copy. */
  clear(): Promise<void>
}

/** Opens a note's cache in the device's store (`location`), or null for `memory://`. */
export type NoteCacheFactory = (location: string, name: string, doc: Y.Doc) => NoteCache | null

/** Where a note's connection stands. */
export interface NoteStatus {
  connected: boolean
  /** The server's copy and this device's are in step (the last sync round finished). */
  synced: boolean
  /** Why the server closed the note for good (`KEY_REVOKED`, `NOT_FOUND`, `NOTE_DELETED`, ...); null while fine. */
  error: { code: number; reason: string } | null
  /**
   * The last edit the server refused and why (`READ_ONLY: ...`, `NOTE_TOO_LONG: ...`, `NOTE_NOT_TEXT: ...`):
   * it stays in this copy and never reaches the others, and later edits in this copy build on it, so
   * the server cannot take them either. Close the note and open it again: after a refusal, closing
   * forgets the device's cached copy, so the note reopens as the server has it.
   */
  refused: string | null
}

interface NoteEvents extends Record<string, unknown> {
  status: NoteStatus
  refused: string
}

/** A shared note, open on this device: edit `text`; other members' edits arrive in it live. */
export interface HearthNote {
  readonly target: NoteTarget
  readonly doc: Y.Doc
  readonly text: Y.Text
  /** Who else has the note open (y-protocols awareness); the server stamps `user.id` on each state. */
  readonly awareness: Awareness
  /** The y-websocket provider, or null for a device without a server. */
  readonly provider: WebsocketProvider | null
  readonly status: NoteStatus
  on<E extends keyof NoteEvents>(event: E, listener: (payload: NoteEvents[E]) => void): () => void
  /** Resolves once connected and in step with the server; rejects if the server closed it for good. */
  whenSynced(options?: { timeoutMs?: number }): Promise<void>
  close(): Promise<void>
}

/** What opening a note needs from its Hearth. */
export interface NoteContext {
  serverUrl?: string
  /** Left out, the page's session cookie signs the socket in (a browser page of the server). */
  token?: string
  householdId: string
  location: string
  cache?: NoteCacheFactory
  /** The WebSocket class: the global one in browsers, `ws` in Node. */
  socketClass?: unknown
  /** Shown to the others editing, beside the server's `user.id`. */
  user: { name: string | null }
}

/**
 * Opens the shared note on `target`: its cached copy first (so it opens offline), then a
 * y-websocket connection to `/notes/ws/<household>/<kind>/<id>` that merges both ways. The key
 * travels as the WebSocket subprotocol `hearth-key.<token>`, never in the URL.
 */
export async function openNote(context: NoteContext, target: NoteTarget): Promise<HearthNote> {
  const doc = new Y.Doc()
  const text = doc.getText(NOTE_TEXT_NAME)
  const name = `${context.householdId}:${target.kind}:${target.id}`
  const cache = context.cache?.(context.location, name, doc) ?? null
  await cache?.whenLoaded
  const events = new Emitter<NoteEvents>()
  const status: NoteStatus = { connected: false, synced: false, error: null, refused: null }
  const changed = () => events.emit('status', { ...status })
  let provider: WebsocketProvider | null = null
  let stopWatchingNetwork = () => {}
  if (context.serverUrl && context.socketClass) {
    const base = `${context.serverUrl.replace(/^http/, 'ws').replace(/\/+$/, '')}/notes/ws`
    provider = new WebsocketProvider(
      base,
      [context.householdId, target.kind, target.id].map(encodeURIComponent).join('/'),
      doc,
      {
        connect: false,
        disableBc: true,
        protocols: context.token ? ['hearth-notes', `hearth-key.${context.token}`] : ['hearth-notes'],
        WebSocketPolyfill: context.socketClass as typeof WebSocket,
        maxBackoffTime: 2500,
      },
    )
    provider.messageHandlers[2] = (_encoder, decoder) => {
      authProtocol.readAuthMessage(decoder, doc, (_doc, reason) => {
        status.refused = reason
        events.emit('refused', reason)
        changed()
      })
    }
    provider.on('status', ({ status: s }) => {
      status.connected = s === 'connected'
      if (!status.connected) status.synced = false
      changed()
    })
    provider.on('sync', (synced: boolean) => {
      status.synced = synced
      changed()
    })
    provider.on('closed', (event: { code: number; reason: string }) => {
      status.error = { code: event.code, reason: event.reason }
      status.connected = false
      status.synced = false
      changed()
    })
    provider.awareness.setLocalStateField('user', { name: context.user.name })
    stopWatchingNetwork = followNetwork(provider)
  }
  const awareness = provider?.awareness ?? new Awareness(doc)
  let closed = false
  return {
    target,
    doc,
    text,
    awareness,
    provider,
    get status() {
      return { ...status }
    },
    on: (event, listener) => events.on(event, listener),
    whenSynced({ timeoutMs = 30_000 } = {}) {
      return new Promise<void>((resolve, reject) => {
        const check = (s: NoteStatus) => {
          if (s.error) {
            done()
            reject(
              Object.assign(new Error(`The note was closed: ${s.error.reason}`), { code: s.error.reason }),
            )
          } else if (s.connected && s.synced) {
            done()
            resolve()
          }
        }
        const off = events.on('status', check)
        const timer = setTimeout(() => {
          done()
          reject(Object.assign(new Error('The note did not sync in time.'), { code: 'SYNC_TIMEOUT' }))
        }, timeoutMs)
        const done = () => {
          off()
          clearTimeout(timer)
        }
        if (!provider) {
          done()
          reject(Object.assign(new Error('This Hearth has no server.'), { code: 'OFFLINE' }))
          return
        }
        check(status)
      })
    },
    async close() {
      if (closed) return
      closed = true
      stopWatchingNetwork()
      provider?.destroy()
      if (status.refused) await cache?.clear()
      else await cache?.close()
      doc.destroy()
    },
  }
}

/**
 * Connects `provider`, and where the platform says when the network goes (a browser's `offline`
 * and `online` events), disconnects at once and connects again when it is back. Without this a
 * socket the network dropped looks connected until y-websocket hears nothing for 30 s: the note
 * would say it is shared while edits go nowhere, and the others would still show as editing.
 * Answers a function that stops following the network.
 */
function followNetwork(provider: WebsocketProvider): () => void {
  const page = globalThis as Partial<Pick<Window, 'addEventListener' | 'removeEventListener' | 'navigator'>>
  const listen = page.addEventListener?.bind(page)
  const unlisten = page.removeEventListener?.bind(page)
  if (!listen || !unlisten) {
    provider.connect()
    return () => {}
  }
  if (page.navigator?.onLine !== false) provider.connect()
  const goOffline = () => provider.disconnect()
  const goOnline = () => provider.connect()
  listen('offline', goOffline)
  listen('online', goOnline)
  return () => {
    unlisten('offline', goOffline)
    unlisten('online', goOnline)
  }
}
