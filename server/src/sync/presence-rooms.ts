import * as decoding from 'lib0/decoding'
import * as encoding from 'lib0/encoding'
import {
  Awareness,
  applyAwarenessUpdate,
  encodeAwarenessUpdate,
  removeAwarenessStates,
} from 'y-protocols/awareness'
import * as Y from 'yjs'

/** Who a presence state belongs to; the server writes it into every state, devices cannot. */
export interface PresenceIdentity {
  userId: string
  clientId: string
  deviceName: string | null
}

/** A connected device as presence sees it. */
export interface PresenceMember {
  householdId: string
  presenceIdentity: PresenceIdentity
  sendPresence(update: Uint8Array): void
}

/** Largest JSON state one device may set, in characters. */
const MAX_STATE_CHARS = 2048

/** Least time between two of one device's updates being relayed; the newest in between wins. */
const MIN_UPDATE_INTERVAL_MS = 250

/** The owner of awareness ids whose devices are attached to another server instance. */
const ELSEWHERE = Symbol('another server instance')

interface Room {
  awareness: Awareness
  /** Which device holds each awareness client id; ids of other instances' devices are ELSEWHERE. */
  owners: Map<number, PresenceMember | typeof ELSEWHERE>
  /** Each local device's one awareness id, chosen by the server when it joins. */
  ids: Map<PresenceMember, number>
  members: Set<PresenceMember>
  /** Updates held back by the rate limit: the newest per device, and when it may go. */
  held: Map<PresenceMember, { entry: AwarenessEntry; timer: ReturnType<typeof setTimeout> }>
  /** When each device's last update was applied. */
  lastApplied: Map<PresenceMember, number>
}

/**
 * What one server instance tells the others about a household's presence: a stamped awareness
 * update for one id (`update`, base64), or a request that each instance repeat its own devices'
 * states (`ask`, sent when an instance opens a room).
 */
export interface RelayedPresence {
  from: string
  householdId: string
  update?: string
  ask?: true
}

/** Carries presence between server instances (PostgreSQL NOTIFY); absent with one instance. */
export interface PresenceRelay {
  publish(message: RelayedPresence): void
}

/**
 * Presence per household over y-protocols awareness: which members and devices are online, and
 * the small state each sets (the screen it shows). States are relayed to the household's other
 * devices, stamped with the sender's identity, and removed when the device leaves or goes
 * silent for 30 seconds. Nothing here touches the database. With a relay, the states of devices
 * attached to other server instances join the room too: each instance publishes its own devices'
 * updates one id at a time (a NOTIFY payload holds 8,000 bytes), and an instance opening a room
 * asks the others for theirs. A crashed instance's states expire on the others after 30 seconds.
 */
export class PresenceRooms {
  private readonly rooms = new Map<string, Room>()

  constructor(
    private readonly relay?: PresenceRelay,
    /** This instance's name on the relay, so it can ignore its own messages. */
    private readonly instanceId = crypto.randomUUID(),
  ) {}

  /** A message from the relay: another instance's device states, or its request for ours. */
  relayed(message: RelayedPresence): void {
    if (message.from === this.instanceId) return
    const room = this.rooms.get(message.householdId)
    if (!room) return
    if (message.ask) {
      for (const [id, owner] of room.owners) {
        if (owner !== ELSEWHERE && room.awareness.getStates().has(id))
          this.publish(message.householdId, room, id)
      }
      return
    }
    if (!message.update) return
    const update = new Uint8Array(Buffer.from(message.update, 'base64'))
    const ids = awarenessIds(update)
    // A clash with a local device's id (random 32-bit ids) is refused rather than overwritten.
    if (!ids || ids.some((id) => (room.owners.get(id) ?? ELSEWHERE) !== ELSEWHERE)) return
    for (const id of ids) room.owners.set(id, ELSEWHERE)
    applyAwarenessUpdate(room.awareness, update, ELSEWHERE)
  }

  /**
   * A device joined: it gets an awareness id of its own, chosen here (so no device can speak for
   * another's, now or after it reconnects), and receives everyone's current state.
   */
  join(member: PresenceMember): void {
    const room = this.room(member.householdId)
    room.members.add(member)
    let id: number
    do id = crypto.getRandomValues(new Uint32Array(1))[0]!
    while (id === 0 || room.owners.has(id) || id === room.awareness.clientID)
    room.ids.set(member, id)
    room.owners.set(id, member)
    const ids = [...room.awareness.getStates().keys()].filter((id) => id !== room.awareness.clientID)
    if (ids.length > 0) member.sendPresence(encodeAwarenessUpdate(room.awareness, ids))
  }

  /**
   * An update from a device: its own state only (one entry, which speaks for the id the server
   * gave the device, whatever id it names), at most 2,048 characters, applied and relayed at most
   * every 250 ms per device (updates in between are folded into the newest). Anything else is
   * dropped.
   */
  receive(member: PresenceMember, update: Uint8Array): void {
    const room = this.rooms.get(member.householdId)
    if (!room?.members.has(member)) return
    const entries = decodeEntries(update)
    if (entries?.length !== 1 || entries[0]!.text.length > MAX_STATE_CHARS) return
    const entry = entries[0]!
    const held = room.held.get(member)
    if (held) {
      held.entry = entry
      return
    }
    const wait = (room.lastApplied.get(member) ?? -Infinity) + MIN_UPDATE_INTERVAL_MS - performance.now()
    if (wait <= 0) {
      this.apply(room, member, entry)
      return
    }
    const timer = setTimeout(() => {
      const newest = room.held.get(member)
      room.held.delete(member)
      if (newest && room.members.has(member)) this.apply(room, member, newest.entry)
    }, wait)
    timer.unref?.()
    room.held.set(member, { entry, timer })
  }

  private apply(room: Room, member: PresenceMember, entry: AwarenessEntry): void {
    const id = room.ids.get(member)
    if (id === undefined) return
    const stamped = stamp({ ...entry, id }, member)
    if (!stamped) return
    room.lastApplied.set(member, performance.now())
    applyAwarenessUpdate(room.awareness, stamped, member)
  }

  /** A device left: its states go at once, and everyone hears so. */
  leave(member: PresenceMember): void {
    const room = this.rooms.get(member.householdId)
    if (!room) return
    room.members.delete(member)
    room.ids.delete(member)
    room.lastApplied.delete(member)
    const held = room.held.get(member)
    if (held) clearTimeout(held.timer)
    room.held.delete(member)
    const owned = [...room.owners].filter(([, owner]) => owner === member).map(([id]) => id)
    for (const id of owned) room.owners.delete(id)
    if (owned.length > 0) removeAwarenessStates(room.awareness, owned, 'leave')
    if (room.members.size === 0) {
      room.awareness.destroy()
      this.rooms.delete(member.householdId)
    }
  }

  /** Drops every room (server shutdown). */
  close(): void {
    for (const room of this.rooms.values()) {
      for (const { timer } of room.held.values()) clearTimeout(timer)
      room.awareness.destroy()
    }
    this.rooms.clear()
  }

  private room(householdId: string): Room {
    const room = this.rooms.get(householdId)
    if (room) return room
    const awareness = new Awareness(new Y.Doc())
    // The server is no participant of its own rooms.
    awareness.setLocalState(null)
    const created: Room = {
      awareness,
      owners: new Map(),
      ids: new Map(),
      members: new Set(),
      held: new Map(),
      lastApplied: new Map(),
    }
    awareness.on(
      'update',
      ({ added, updated, removed }: Record<'added' | 'updated' | 'removed', number[]>, origin: unknown) => {
        const ids = [...added, ...updated, ...removed]
        if (ids.length === 0) return
        const message = encodeAwarenessUpdate(awareness, ids)
        for (const m of created.members) if (m !== origin) m.sendPresence(message)
        if (origin !== ELSEWHERE) {
          for (const id of ids)
            if (created.owners.get(id) !== ELSEWHERE) this.publish(householdId, created, id)
        }
        for (const id of removed) if (created.owners.get(id) === ELSEWHERE) created.owners.delete(id)
      },
    )
    this.rooms.set(householdId, created)
    this.relay?.publish({ from: this.instanceId, householdId, ask: true })
    return created
  }

  private publish(householdId: string, room: Room, id: number): void {
    if (!this.relay) return
    const update = Buffer.from(encodeAwarenessUpdate(room.awareness, [id])).toString('base64')
    this.relay.publish({ from: this.instanceId, householdId, update })
  }
}

interface AwarenessEntry {
  id: number
  clock: number
  /** The state as JSON text. */
  text: string
}

/** The entries of an awareness update (y-protocols' encoding), or null when it does not decode. */
function decodeEntries(update: Uint8Array): AwarenessEntry[] | null {
  try {
    const decoder = decoding.createDecoder(update)
    const entries: AwarenessEntry[] = []
    for (let count = decoding.readVarUint(decoder); count > 0; count--) {
      const id = decoding.readVarUint(decoder)
      const clock = decoding.readVarUint(decoder)
      entries.push({ id, clock, text: decoding.readVarString(decoder) })
    }
    return entries
  } catch {
    return null
  }
}

/** The awareness ids an update speaks for, or null when it does not decode. */
function awarenessIds(update: Uint8Array): number[] | null {
  return decodeEntries(update)?.map((e) => e.id) ?? null
}

/** Encodes one device's entry as an update whose state carries the device's identity. */
function stamp({ id, clock, text }: AwarenessEntry, member: PresenceMember): Uint8Array | null {
  try {
    const state = JSON.parse(text) as Record<string, unknown> | null
    const stamped =
      state === null || typeof state !== 'object' || Array.isArray(state)
        ? null
        : { ...state, member: member.presenceIdentity }
    const encoder = encoding.createEncoder()
    encoding.writeVarUint(encoder, 1)
    encoding.writeVarUint(encoder, id)
    encoding.writeVarUint(encoder, clock)
    encoding.writeVarString(encoder, JSON.stringify(stamped))
    return encoding.toUint8Array(encoder)
  } catch {
    return null
  }
}
