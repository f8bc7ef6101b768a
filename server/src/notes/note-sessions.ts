import type { IncomingMessage } from 'node:http'
import { EngineError, resolveMembership, type Scope, type Store } from '@hearth/engine'
import type { Logger } from 'pino'
import type { WebSocket } from 'ws'
import type { AuthFailures } from '../http/rate-limits.ts'
import { authenticateToken } from '../sync/devices.ts'
import type { CurrentRights, GuardedSession, SessionHolder } from '../sync/session-rights.ts'
import { type NotePeer, NoteRoom } from './note-hub.ts'
import { parseNoteNotice } from './note-store.ts'
import { isNoteKind, NOTE_SCOPES, type NoteKey, noteKeyText, targetExists } from './targets.ts'

/** Where note sockets are served: `/notes/ws/<householdId>/<kind>/<targetId>`. */
export const NOTES_WS_PREFIX = '/notes/ws/'
/** The subprotocol a note socket speaks; the browser offers the key beside it as `hearth-key.<token>`. */
export const NOTES_PROTOCOL = 'hearth-notes'
export const KEY_PROTOCOL_PREFIX = 'hearth-key.'

/** Reads `/notes/ws/<householdId>/<kind>/<targetId>`; null for anything else. */
export function parseNotePath(
  path: string,
): { householdRef: string; kind: NoteKey['kind']; id: string } | null {
  if (!path.startsWith(NOTES_WS_PREFIX)) return null
  const parts = path.slice(NOTES_WS_PREFIX.length).split('/').map(safeDecode)
  if (parts.length !== 3 || parts.some((p) => !p)) return null
  const [householdRef, kind, id] = parts as [string, string, string]
  return isNoteKind(kind) ? { householdRef, kind, id } : null
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part)
  } catch {
    return ''
  }
}

/**
 * The API key of a note socket: the `hearth-key.<token>` subprotocol a browser offers (a
 * WebSocket in a browser cannot send headers, and a query parameter would land in proxies'
 * logs), else `Authorization: Bearer`.
 */
export function noteSocketToken(request: IncomingMessage, bearer: string | undefined): string | undefined {
  const offered = (request.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim())
  const key = offered.find((p) => p.startsWith(KEY_PROTOCOL_PREFIX))
  return key ? key.slice(KEY_PROTOCOL_PREFIX.length) : bearer
}

/** The display name of a member's profile. */
async function profileName(store: Store, userId: string): Promise<string> {
  const user = await store.db.selectFrom('users').select('name').where('id', '=', userId).executeTakeFirst()
  return user?.name ?? ''
}

/** Close codes a note socket ends with; 44xx tell y-websocket not to reconnect. */
const CLOSE = {
  UNAUTHENTICATED: 4401,
  KEY_REVOKED: 4401,
  INSUFFICIENT_SCOPE: 4403,
  SCOPE_REVOKED: 4403,
  NOT_FOUND: 4404,
  MEMBERSHIP_ENDED: 4404,
  NOTE_DELETED: 4410,
  RATE_LIMITED: 4429,
} as const

/** Every note room this instance holds, and every live note socket. */
export class NoteHub {
  private readonly rooms = new Map<string, Promise<NoteRoom>>()
  readonly sessions = new Set<NoteSession>()
  private readonly refresher: ReturnType<typeof setInterval> | null

  constructor(
    readonly store: Store,
    readonly logger: Logger,
    private readonly authFailures: AuthFailures | undefined,
    /**
     * Whether other instances may write the same notes (several on one PostgreSQL): open rooms
     * then also re-read the store each round, behind LISTEN.
     */
    shared: boolean,
    /** How often open rooms check, behind the announcements, that their target still exists. */
    checkMs = 1000,
  ) {
    this.refresher = setInterval(() => void this.check(shared), checkMs)
    this.refresher.unref()
  }

  private checking = false

  /** The safety net behind `hearth_notes`: a deleted target closes its note; other instances' writes are read. */
  private async check(shared: boolean): Promise<void> {
    if (this.checking) return
    this.checking = true
    try {
      for (const pending of [...this.rooms.values()]) {
        const room = await pending.catch(() => null)
        if (!room || room.closed) continue
        if (!(await targetExists(this.store.db, room.key))) {
          this.notice(`deleted:${noteKeyText(room.key)}`)
          continue
        }
        if (shared) await room.refresh()
      }
    } catch (err) {
      this.logger.warn({ err }, 'checking open notes failed')
    } finally {
      this.checking = false
    }
  }

  /** The room of `key`, loaded once. */
  room(key: NoteKey): Promise<NoteRoom> {
    const name = noteKeyText(key)
    let room = this.rooms.get(name)
    if (!room) {
      room = (async () => {
        const r = new NoteRoom(key, this.store, this.logger)
        await r.load()
        return r
      })()
      this.rooms.set(name, room)
      room.catch(() => this.rooms.delete(name))
    }
    return room
  }

  /** Runs `work` on the note's room, dropping the room after if no peer holds it. */
  async withRoom<T>(key: NoteKey, work: (room: NoteRoom) => Promise<T>): Promise<T> {
    const room = await this.room(key)
    try {
      return await work(room)
    } finally {
      if (room.peers.size === 0) await this.drop(room)
    }
  }

  /** Compacts an idle room's updates and forgets it. */
  async drop(room: NoteRoom): Promise<void> {
    const name = noteKeyText(room.key)
    if ((await this.rooms.get(name)) !== room || room.peers.size > 0) return
    this.rooms.delete(name)
    await room.serially(() => room.compact())
    room.close()
  }

  /** A `hearth_notes` announcement: another instance's write, or a deleted target. */
  notice(payload: string): void {
    const notice = parseNoteNotice(payload)
    if (!notice) return
    const room = this.rooms.get(noteKeyText(notice.key))
    if (notice.type === 'deleted') {
      for (const session of this.sessions) {
        if (session.key && noteKeyText(session.key) === noteKeyText(notice.key)) {
          session.end(CLOSE.NOTE_DELETED, 'NOTE_DELETED')
        }
      }
      return
    }
    void room?.then((r) => r.announced(notice.seq)).catch(() => {})
  }

  /** A new note socket: authenticates, checks the target and scope, then joins its room. */
  open(ws: WebSocket, request: IncomingMessage, address: string, token: string | undefined): void {
    const session = new NoteSession(this, ws)
    this.sessions.add(session)
    const early: Uint8Array[] = []
    ws.on('message', (data: Buffer, isBinary) => {
      if (!isBinary) return
      const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      if (session.room) session.receive(bytes)
      else early.push(bytes)
    })
    ws.on('close', () => {
      this.sessions.delete(session)
      session.left()
    })
    ws.on('error', (err) => this.logger.warn({ err }, 'note socket error'))
    const target = parseNotePath(new URL(request.url ?? '/', 'http://localhost').pathname)!
    void session
      .start(address, token, target)
      .then(() => {
        for (const bytes of early.splice(0)) session.receive(bytes)
      })
      .catch((error) => {
        const code = error instanceof EngineError ? error.code : 'INTERNAL'
        if (!(error instanceof EngineError)) this.logger.error({ err: error }, 'note socket failed')
        session.end(CLOSE[code as keyof typeof CLOSE] ?? 1011, code)
      })
  }

  /** Authenticates a note socket, as REST and sync do, counting failures with theirs. */
  async authenticate(address: string, token: string | undefined) {
    const verify = () => authenticateToken(this.store, token)
    return this.authFailures ? this.authFailures.attempt(address, token, verify) : verify()
  }

  close(): void {
    if (this.refresher) clearInterval(this.refresher)
    for (const session of this.sessions) session.end(1001, 'SERVER_CLOSING')
    for (const room of this.rooms.values()) void room.then((r) => r.close()).catch(() => {})
    this.rooms.clear()
  }
}

/** One note socket: its key, its member, its rights, its room. */
export class NoteSession implements GuardedSession, NotePeer {
  holder: SessionHolder | null = null
  key: NoteKey | null = null
  room: NoteRoom | null = null
  userId = ''
  userName = ''
  private scopes: readonly Scope[] = []
  private suspended = false
  private held: Uint8Array[] = []
  private ended = false

  constructor(
    private readonly hub: NoteHub,
    private readonly ws: WebSocket,
  ) {}

  get canWrite(): boolean {
    return Boolean(this.key && this.scopes.includes(NOTE_SCOPES[this.key.kind].write))
  }

  async start(
    address: string,
    token: string | undefined,
    target: { householdRef: string; kind: NoteKey['kind']; id: string },
  ): Promise<void> {
    const caller = await this.hub.authenticate(address, token)
    const membership = await resolveMembership(this.hub.store.db, caller.userId, target.householdRef)
    if (!membership)
      throw new EngineError(404, 'NOT_FOUND', `Household ${target.householdRef} was not found.`)
    const key: NoteKey = { householdId: membership.householdId, kind: target.kind, id: target.id }
    const read = NOTE_SCOPES[key.kind].read
    if (!caller.scopes.includes(read))
      throw new EngineError(403, 'INSUFFICIENT_SCOPE', `Requires scope ${read}.`)
    if (!(await targetExists(this.hub.store.db, key))) {
      throw new EngineError(404, 'NOT_FOUND', `The ${key.kind} ${key.id} was not found.`)
    }
    this.userId = caller.userId
    // Others see the name of the member's profile, never one the socket claims (read once per socket).
    this.userName = await profileName(this.hub.store, caller.userId)
    this.scopes = caller.scopes
    this.key = key
    this.holder = { keyId: caller.keyId, userId: caller.userId, householdId: key.householdId }
    if (this.ended) return
    const room = await this.hub.room(key)
    if (this.ended) return
    this.room = room
    room.join(this)
  }

  receive(bytes: Uint8Array): void {
    const room = this.room
    if (!room || this.ended) return
    room.receive(this, bytes).catch((err) => {
      if (err instanceof EngineError && err.code === 'NOT_FOUND') this.end(CLOSE.NOTE_DELETED, 'NOTE_DELETED')
      else {
        this.hub.logger.warn({ err }, 'note message failed')
        this.end(1011, 'INTERNAL')
      }
    })
  }

  send(message: Uint8Array): void {
    if (this.ended) return
    if (this.suspended) this.held.push(message)
    else this.ws.send(message)
  }

  /** Rights are being read again: nothing goes out meanwhile. */
  suspend(): void {
    this.suspended = true
  }

  applyRights(rights: CurrentRights): void {
    if (this.ended || !this.key) return
    const read = NOTE_SCOPES[this.key.kind].read
    const ended = !rights.scopes
      ? 'KEY_REVOKED'
      : !rights.role
        ? 'MEMBERSHIP_ENDED'
        : !rights.scopes.includes(read)
          ? 'SCOPE_REVOKED'
          : null
    if (ended || !rights.scopes) {
      this.end(CLOSE[ended ?? 'KEY_REVOKED'], ended ?? 'KEY_REVOKED')
      return
    }
    this.scopes = rights.scopes
    this.suspended = false
    for (const message of this.held.splice(0)) this.ws.send(message)
  }

  end(code: number, reason: string): void {
    if (this.ended) return
    this.ended = true
    this.held = []
    this.ws.close(code, reason)
    this.left()
  }

  /** The socket closed: leave the room, and drop the room if it is now empty. */
  left(): void {
    this.ended = true
    const room = this.room
    this.room = null
    if (room?.leave(this)) void this.hub.drop(room).catch(() => {})
  }
}
