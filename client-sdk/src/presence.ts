import {
  Awareness,
  applyAwarenessUpdate,
  encodeAwarenessUpdate,
  removeAwarenessStates,
} from 'y-protocols/awareness'
import * as Y from 'yjs'

/** One device online in the household, and the state it shares. */
export interface PresenceEntry {
  userId: string
  clientId: string
  deviceName: string | null
  /** What the device set with `presence.set`: the screen it shows, say. */
  state: Record<string, unknown>
  /** This device itself. */
  self: boolean
}

/**
 * This device's side of presence: a y-protocols awareness whose local state is what the app
 * sets, sent over the sync socket; other devices' states arrive stamped by the server with who
 * they are. Remote states vanish when the socket drops and come back after a reconnect.
 */
export class Presence {
  readonly awareness = new Awareness(new Y.Doc())
  private online = false

  constructor(
    private readonly send: (update: Uint8Array) => void,
    private readonly self: () => Omit<PresenceEntry, 'state' | 'self'>,
    onChange: () => void,
  ) {
    this.awareness.setLocalState(null)
    this.awareness.on('update', ({ added, updated, removed }: Record<string, number[]>, origin: unknown) => {
      const own = [...added!, ...updated!, ...removed!].includes(this.awareness.clientID)
      if (origin === 'local' && own && this.online) this.sendOwn()
    })
    this.awareness.on('change', onChange)
  }

  /** Shares a small state with the household's other devices; null stops sharing. */
  set(state: Record<string, unknown> | null): void {
    this.awareness.setLocalState(state === null ? null : { view: state })
  }

  /** Every device online now, this one first when it shares a state. */
  list(): PresenceEntry[] {
    const entries: PresenceEntry[] = []
    for (const [id, raw] of this.awareness.getStates()) {
      const state = raw as { view?: Record<string, unknown>; member?: Omit<PresenceEntry, 'state' | 'self'> }
      if (id === this.awareness.clientID) {
        entries.unshift({ ...this.self(), state: state.view ?? {}, self: true })
      } else if (state.member) {
        entries.push({ ...state.member, state: state.view ?? {}, self: false })
      }
    }
    return entries
  }

  /** An update relayed by the server. */
  receive(update: Uint8Array): void {
    applyAwarenessUpdate(this.awareness, update, 'remote')
  }

  /** The socket joined: announce this device's state. */
  connected(): void {
    this.online = true
    this.sendOwn()
  }

  /** The socket dropped: nobody else is known to be online any more. */
  disconnected(): void {
    this.online = false
    const remote = [...this.awareness.getStates().keys()].filter((id) => id !== this.awareness.clientID)
    if (remote.length > 0) removeAwarenessStates(this.awareness, remote, 'offline')
  }

  destroy(): void {
    this.awareness.destroy()
  }

  private sendOwn(): void {
    if (this.awareness.getLocalState() === null && !this.awareness.meta.has(this.awareness.clientID)) return
    this.send(encodeAwarenessUpdate(this.awareness, [this.awareness.clientID]))
  }
}

/** Base64 without Node's Buffer, so the core stays browser-safe. */
export function toBase64(bytes: Uint8Array): string {
  let text = ''
  for (const b of bytes) text += String.fromCharCode(b)
  return btoa(text)
}

export function fromBase64(text: string): Uint8Array {
  const raw = atob(text)
  const bytes = new Uint8Array(raw.length)
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i)
  return bytes
}
