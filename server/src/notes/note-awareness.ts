import * as decoding from 'lib0/decoding'
import * as encoding from 'lib0/encoding'
import {
  Awareness,
  applyAwarenessUpdate,
  encodeAwarenessUpdate,
  removeAwarenessStates,
} from 'y-protocols/awareness'
import type * as Y from 'yjs'

/** Largest awareness state a room relays, in UTF-8 bytes of its JSON with the server's `user` stamp. */
export const MAX_NOTE_STATE_BYTES = 2048
/** States one room shows at most: a joiner's awareness message stays under 64 KiB (24 × 2 KiB and framing). */
export const MAX_ROOM_STATES = 24
/** States one member's sockets hold in a room at most, so one member cannot take everyone's places. */
export const MAX_MEMBER_STATES = 8
/** Least time between two of one socket's updates being relayed; the newest in between wins. */
export const MIN_UPDATE_INTERVAL_MS = 250
/** An awareness message longer than one entry of the largest state can be is dropped unread. */
const MAX_UPDATE_BYTES = MAX_NOTE_STATE_BYTES + 32

/** A socket's side of a room's awareness. */
export interface AwarenessPeer {
  send(message: Uint8Array): void
  /** The member, as the server knows them: stamped on the peer's state as `user.id`. */
  readonly userId: string
  /** The member's display name from their profile, stamped as `user.name`. */
  readonly userName: string
}

/**
 * Who has a note open, over y-protocols awareness, under the rules `/sync` presence keeps
 * (docs/api/notes.md): each socket gets one awareness id chosen here when it joins, whatever ids
 * its updates name (an entry naming an id this room gave out is a client repeating what it
 * heard, as y-websocket does, and is ignored); an update is one entry (anything else is dropped unread), a JSON object
 * whose `user` the server writes (`{id, name}` from the member's profile), at most 2 KiB as
 * relayed; at most one update per socket per 250 ms is applied (the newest in between wins);
 * and a room shows at most 24 states, 8 per member. Nothing here touches the database.
 */
export class NoteAwareness {
  readonly awareness: Awareness
  /** Each peer's one awareness id, chosen when it joins. */
  private readonly ids = new Map<AwarenessPeer, number>()
  /** Every id this room has given out: an entry naming one is a client repeating what it heard. */
  private readonly given = new Set<number>()
  private readonly held = new Map<
    AwarenessPeer,
    { state: Record<string, unknown> | null; timer: NodeJS.Timeout }
  >()
  private readonly lastApplied = new Map<AwarenessPeer, number>()

  constructor(doc: Y.Doc) {
    this.awareness = new Awareness(doc)
    // The server is no participant of its own rooms.
    this.awareness.setLocalState(null)
    this.awareness.on(
      'update',
      ({ added, updated, removed }: Record<'added' | 'updated' | 'removed', number[]>, origin: unknown) => {
        const changed = [...added, ...updated, ...removed]
        if (changed.length === 0) return
        const message = awarenessMessage(encodeAwarenessUpdate(this.awareness, changed))
        // The sender knows its own state, under its own id; it would see this one as someone else.
        for (const peer of this.ids.keys()) if (peer !== origin) peer.send(message)
      },
    )
  }

  /** A peer joins: it gets an id of its own and everyone's current states. */
  join(peer: AwarenessPeer): void {
    let id: number
    do id = crypto.getRandomValues(new Uint32Array(1))[0]!
    while (id === 0 || id === this.awareness.clientID || this.awareness.meta.has(id))
    this.ids.set(peer, id)
    this.given.add(id)
    const states = [...this.awareness.getStates().keys()]
    if (states.length > 0) peer.send(awarenessMessage(encodeAwarenessUpdate(this.awareness, states)))
  }

  /** A peer left: its state goes at once, and everyone hears so. */
  leave(peer: AwarenessPeer): void {
    const id = this.ids.get(peer)
    const held = this.held.get(peer)
    if (held) clearTimeout(held.timer)
    this.held.delete(peer)
    this.lastApplied.delete(peer)
    this.ids.delete(peer)
    if (id !== undefined && this.awareness.getStates().has(id))
      removeAwarenessStates(this.awareness, [id], 'left')
  }

  /** An awareness update from `peer`: one entry, stamped and rate-limited, or dropped. */
  receive(peer: AwarenessPeer, update: Uint8Array): void {
    if (!this.ids.has(peer) || update.byteLength > MAX_UPDATE_BYTES) return
    const entry = onlyEntry(update)
    // y-websocket sends every change it applies back to the server, others' states included.
    if (!entry || this.given.has(entry.id)) return
    const { state } = entry
    const held = this.held.get(peer)
    if (held) {
      held.state = state
      return
    }
    const wait = (this.lastApplied.get(peer) ?? -Infinity) + MIN_UPDATE_INTERVAL_MS - performance.now()
    if (wait <= 0) {
      this.apply(peer, state)
      return
    }
    const timer = setTimeout(() => {
      const newest = this.held.get(peer)
      this.held.delete(peer)
      if (newest) this.apply(peer, newest.state)
    }, wait)
    timer.unref()
    this.held.set(peer, { state, timer })
  }

  private apply(peer: AwarenessPeer, state: Record<string, unknown> | null): void {
    const id = this.ids.get(peer)
    if (id === undefined) return
    const states = this.awareness.getStates()
    const text =
      state === null ? 'null' : JSON.stringify({ ...state, user: { id: peer.userId, name: peer.userName } })
    if (Buffer.byteLength(text) > MAX_NOTE_STATE_BYTES) return
    if (state !== null && !states.has(id) && !this.hasPlace(peer)) return
    this.lastApplied.set(peer, performance.now())
    // The room keeps each id's clock itself, so a socket cannot stall its entry with a large one.
    const clock = (this.awareness.meta.get(id)?.clock ?? 0) + 1
    const entry = encoding.createEncoder()
    encoding.writeVarUint(entry, 1)
    encoding.writeVarUint(entry, id)
    encoding.writeVarUint(entry, clock)
    encoding.writeVarString(entry, text)
    applyAwarenessUpdate(this.awareness, encoding.toUint8Array(entry), peer)
  }

  /** Whether the room has a place for one more state of `peer`'s member. */
  private hasPlace(peer: AwarenessPeer): boolean {
    const states = this.awareness.getStates()
    if (states.size >= MAX_ROOM_STATES) return false
    let members = 0
    for (const [other, id] of this.ids) if (other.userId === peer.userId && states.has(id)) members++
    return members < MAX_MEMBER_STATES
  }

  close(): void {
    for (const { timer } of this.held.values()) clearTimeout(timer)
    this.held.clear()
    this.awareness.destroy()
  }
}

/** y-websocket's awareness message around an update. */
function awarenessMessage(update: Uint8Array): Uint8Array {
  const message = encoding.createEncoder()
  encoding.writeVarUint(message, 1)
  encoding.writeVarUint8Array(message, update)
  return encoding.toUint8Array(message)
}

/**
 * The one entry of an update: the id it names and its state, an object or null for "gone"; null
 * when the update is not exactly one entry of either.
 */
function onlyEntry(update: Uint8Array): { id: number; state: Record<string, unknown> | null } | null {
  try {
    const decoder = decoding.createDecoder(update)
    if (decoding.readVarUint(decoder) !== 1) return null
    const id = decoding.readVarUint(decoder)
    decoding.readVarUint(decoder)
    const state: unknown = JSON.parse(decoding.readVarString(decoder))
    if (decoding.hasContent(decoder)) return null
    if (state === null) return { id, state: null }
    return typeof state === 'object' && !Array.isArray(state)
      ? { id, state: state as Record<string, unknown> }
      : null
  } catch {
    return null
  }
}
