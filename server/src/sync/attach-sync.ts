import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'
import type { Store } from '@hearth/engine'
import type { ServerType } from '@hono/node-server'
import type { OpenAPIHono } from '@hono/zod-openapi'
import { sql } from 'kysely'
import type { Logger } from 'pino'
import { type WebSocket, WebSocketServer } from 'ws'
import { bearerToken } from '../auth/api-key-token.ts'
import type { AppEnv } from '../http/env.ts'
import { AuthFailures, DEFAULT_RATE_LIMITS } from '../http/rate-limits.ts'
import { MAX_NOTE_UPDATE_BYTES } from '../notes/note-content.ts'
import { NOTES_PROTOCOL, NoteHub, noteSocketToken, parseNotePath } from '../notes/note-sessions.ts'
import { NOTES_CHANNEL } from '../notes/note-store.ts'
import { noteRoutes } from '../notes/routes.ts'
import {
  HOUSEHOLD_CHANNEL,
  listenOnPostgres,
  PRESENCE_CHANNEL,
  parseHouseholdVersion,
} from './postgres-listener.ts'
import { type PresenceRelay, PresenceRooms, type RelayedPresence } from './presence-rooms.ts'
import { syncRoutes } from './routes.ts'
import { parseRightsChange, RIGHTS_CHANNEL, RightsWatch } from './session-rights.ts'
import { DEFAULT_SYNC_SOCKET_LIMITS, OpenCounter, type SyncSocketLimits } from './socket-limits.ts'
import { SyncHub } from './sync-hub.ts'
import { SyncSession } from './sync-session.ts'

/** What sync needs from the running server. */
export interface AttachSyncOptions {
  server: ServerType
  app: OpenAPIHono<AppEnv>
  store: Store
  logger: Logger
  /** PostgreSQL to LISTEN on for other instances' writes; none on PGlite. */
  databaseUrl?: string
  /** How often followed households' clocks are polled for writes made elsewhere (ms). */
  pollMs?: number
  /** Frame sizes, the hello deadline and socket caps; the defaults otherwise. */
  limits?: SyncSocketLimits
  /** How often every session's rights are read again behind the notifications (ms). */
  rightsRecheckMs?: number
  /** Failed authentications, counted with REST's. */
  authFailures?: AuthFailures
  /** Pushes per device per second before further pushes wait. */
  pushesPerSecond?: number
}

/** How often the server pings every socket; one that missed the previous ping is dropped. */
const HEARTBEAT_MS = 30_000

/** The clock poll with no way to listen: how late a write made elsewhere may reach devices. */
const POLL_MS = 50
/** The clock poll behind LISTEN: only a safety net for a missed announcement. */
const POLL_BEHIND_LISTEN_MS = 1000

/** How often every live session's rights are read again, behind the notifications. */
const RIGHTS_RECHECK_MS = 1000

/**
 * Serves sync on the HTTP server's port: the WebSocket endpoint `/sync` and the HTTP fallbacks
 * `POST /sync/push` and `GET /sync/snapshot` (the job runner trims the change log). Closing the
 * server first closes every sync socket, since an upgraded socket would otherwise hold
 * `server.close()` open for ever.
 */
export function attachSync(options: AttachSyncOptions): SyncHub {
  const server = options.server as Server
  const { app, store, logger } = options
  const configured =
    options.pollMs ?? (process.env.HEARTH_SYNC_POLL_MS ? Number(process.env.HEARTH_SYNC_POLL_MS) : undefined)
  const listens = Boolean(options.databaseUrl || store.listen)
  const hub = new SyncHub(store, {
    pollMs: configured ?? (listens ? POLL_BEHIND_LISTEN_MS : POLL_MS),
    logger,
  })
  const householdChanged = (payload: string) => {
    const bump = parseHouseholdVersion(payload)
    // After what is already queued: PGlite announces a push's commit before the push's own code
    // resumes, and the push then offers its rows itself, which makes this announcement moot.
    if (bump) setImmediate(() => hub.notify(bump.householdId, bump.version))
  }
  // Several instances share one PostgreSQL: they hear each other's writes and presence through it.
  const relay: PresenceRelay | undefined = options.databaseUrl
    ? {
        publish: (message) => {
          sql`select pg_notify(${PRESENCE_CHANNEL}, ${JSON.stringify(message)})`
            .execute(store.db)
            .catch((err) => logger.warn({ err }, 'presence relay failed'))
        },
      }
    : undefined
  const presence = new PresenceRooms(relay)
  const sessions = new Set<SyncSession>()
  const authFailures = options.authFailures ?? new AuthFailures(DEFAULT_RATE_LIMITS)
  // Shared notes (Yjs) ride the same port, keys, rights watch and announcements (docs/api/notes.md).
  const notes = new NoteHub(store, logger.child({ notes: true }), authFailures, Boolean(options.databaseUrl))
  const rights = new RightsWatch(store, () => [...sessions, ...notes.sessions], {
    recheckMs: options.rightsRecheckMs ?? RIGHTS_RECHECK_MS,
    logger,
  })
  // Handled synchronously, in commit order with the clock's announcements: a revocation
  // suspends its sessions before any later commit is fanned out to them.
  const rightsChanged = (payload: string) => {
    const change = parseRightsChange(payload)
    if (change) rights.changed(change)
  }
  const listener = options.databaseUrl
    ? listenOnPostgres(
        options.databaseUrl,
        {
          [HOUSEHOLD_CHANNEL]: householdChanged,
          [RIGHTS_CHANNEL]: rightsChanged,
          [PRESENCE_CHANNEL]: (payload) => presence.relayed(JSON.parse(payload) as RelayedPresence),
          [NOTES_CHANNEL]: (payload) => notes.notice(payload),
        },
        logger,
      )
    : null
  // The embedded store announces its own commits, REST writes included, on its one connection.
  const listenLocally = (channel: string, handler: (payload: string) => void) =>
    store.listen?.(channel, handler).catch((err) => {
      logger.warn({ err, channel }, 'the store cannot announce commits; periodic reads find them')
      return async () => {}
    })
  const unlisten = options.databaseUrl
    ? []
    : [
        listenLocally(HOUSEHOLD_CHANNEL, householdChanged),
        listenLocally(RIGHTS_CHANNEL, rightsChanged),
        listenLocally(NOTES_CHANNEL, (payload) => notes.notice(payload)),
      ]
  const limits = options.limits ?? DEFAULT_SYNC_SOCKET_LIMITS
  const pushesPerSecond = options.pushesPerSecond ?? DEFAULT_RATE_LIMITS.pushesPerSecond
  const perAddress = new OpenCounter(limits.maxSocketsPerAddress)
  const perKey = new OpenCounter(limits.maxSessionsPerKey)
  // Before hello only a small frame is read; a joined session may send a push batch.
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.helloFrameBytes })

  // A note socket offers the key as a subprotocol beside `hearth-notes`; the server picks
  // `hearth-notes`, so the key is never echoed back.
  const notesWss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_NOTE_UPDATE_BYTES + 1024,
    handleProtocols: (offered) => (offered.has(NOTES_PROTOCOL) ? NOTES_PROTOCOL : false),
  })

  app.route('/', syncRoutes(store, hub, limits.maxDevicesPerKey))
  app.route('/', noteRoutes(notes))

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname
    const address = request.socket.remoteAddress ?? 'unknown'
    if (path !== '/sync') {
      if (!parseNotePath(path)) return refuse(socket, '404 Not Found')
      if (notesWss.clients.size >= limits.maxSockets) return refuse(socket, '503 Service Unavailable', 5)
      if (!perAddress.take(address)) return refuse(socket, '429 Too Many Requests', 5)
      const token = noteSocketToken(request, bearerToken(request.headers.authorization))
      return notesWss.handleUpgrade(request, socket, head, (ws) => {
        ws.once('close', () => perAddress.release(address))
        alive.set(ws, true)
        ws.on('pong', () => alive.set(ws, true))
        notes.open(ws, request, address, token)
      })
    }
    if (wss.clients.size >= limits.maxSockets) return refuse(socket, '503 Service Unavailable', 5)
    if (!perAddress.take(address)) return refuse(socket, '429 Too Many Requests', 5)
    wss.handleUpgrade(request, socket, head, (ws) => {
      ws.once('close', () => perAddress.release(address))
      open(ws, request, address)
    })
  })

  // A device that vanished without closing (sleep, lost network) would hold its session for ever.
  const alive = new WeakMap<WebSocket, boolean>()
  const heartbeat = setInterval(() => {
    for (const client of [...wss.clients, ...notesWss.clients]) {
      if (alive.get(client) === false) {
        client.terminate()
        continue
      }
      alive.set(client, false)
      client.ping()
    }
  }, HEARTBEAT_MS)
  heartbeat.unref()

  function open(ws: WebSocket, request: IncomingMessage, address: string): void {
    alive.set(ws, true)
    ws.on('pong', () => alive.set(ws, true))
    const bearer = bearerToken(request.headers.authorization)
    let keyHeld: string | null = null
    // A socket that never joins is closed, so an idle or hostile one cannot hold a slot.
    const helloTimer = setTimeout(() => {
      if (!keyHeld) ws.close(4408, 'HELLO_TIMEOUT')
    }, limits.helloTimeoutMs)
    helloTimer.unref()
    const session = new SyncSession(
      {
        send: (text) => ws.send(text),
        close: (code, reason) => ws.close(code, reason),
        address,
        joined: (keyId) => {
          if (!perKey.take(keyId)) return false
          keyHeld = keyId
          clearTimeout(helloTimer)
          raiseFrameLimit(ws, limits.frameBytes)
          return true
        },
      },
      {
        store,
        hub,
        presence,
        logger: logger.child({ sync: true }),
        authFailures,
        pushesPerSecond,
        maxDevices: limits.maxDevicesPerKey,
      },
      bearer,
    )
    sessions.add(session)
    ws.on('message', (data, isBinary) => {
      if (!isBinary) session.receive(data.toString())
    })
    ws.on('close', () => {
      clearTimeout(helloTimer)
      if (keyHeld) perKey.release(keyHeld)
      sessions.delete(session)
      session.disconnected()
    })
    ws.on('error', (err) => logger.warn({ err }, 'sync socket error'))
  }

  const close = server.close.bind(server)
  server.close = ((callback?: (err?: Error) => void) => {
    hub.close()
    rights.close()
    clearInterval(heartbeat)
    void listener?.close()
    for (const stop of unlisten) void stop?.then((s) => s()).catch(() => {})
    for (const session of sessions) session.close()
    notes.close()
    for (const client of notesWss.clients) client.terminate()
    notesWss.close()
    for (const client of wss.clients) client.terminate()
    presence.close()
    wss.close()
    return close(callback)
  }) as Server['close']
  return hub
}

/** Answers an upgrade that will not be served, and closes the connection. */
function refuse(socket: Duplex, status: string, retryAfterSeconds?: number): void {
  const retry = retryAfterSeconds ? `Retry-After: ${retryAfterSeconds}\r\n` : ''
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n${retry}Content-Length: 0\r\n\r\n`)
}

/**
 * Lets a joined session send frames up to `bytes`. `ws` fixes `maxPayload` per server, and the
 * server's is the small pre-hello limit, so the socket's receiver is raised once it joins; the
 * socket-limits test fails if a `ws` upgrade moves the field.
 */
function raiseFrameLimit(ws: WebSocket, bytes: number): void {
  const receiver = (ws as unknown as { _receiver?: { _maxPayload: number } })._receiver
  if (!receiver || typeof receiver._maxPayload !== 'number') {
    throw new Error('ws changed: its receiver has no _maxPayload to raise.')
  }
  receiver._maxPayload = bytes
}
