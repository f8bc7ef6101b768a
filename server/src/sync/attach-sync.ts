import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'
import type { Store } from '@hearth/engine'
import type { ServerType } from '@hono/node-server'
import type { OpenAPIHono } from '@hono/zod-openapi'
import { sql } from 'kysely'
import type { Logger } from 'pino'
import { type WebSocket, WebSocketServer } from 'ws'
import { bearerToken } from '../auth/api-key-token.ts'
import { fromSameOrigin } from '../auth/same-origin.ts'
import { sessionCookieOfUpgrade } from '../auth/session-cookie.ts'
import { ClientAddresses } from '../http/client-address.ts'
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
import {
  DEFAULT_SYNC_SOCKET_LIMITS,
  OpenCounter,
  type SyncSocketLimits,
  UnjoinedSockets,
} from './socket-limits.ts'
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
  /** How often the rights clock is read behind the notifications (ms). */
  rightsRecheckMs?: number
  /** Failed authentications, counted with REST's. */
  authFailures?: AuthFailures
  /** Where a socket comes from: its peer, or what a trusted proxy forwarded; the peer by default. */
  clientAddresses?: ClientAddresses
  /** Pushes per device per second before further pushes wait. */
  pushesPerSecond?: number
  /** Rows per snapshot or delta page (2,000); tests make it small to get many pages. */
  pageRows?: number
  /** Origins besides the server's own whose pages may open sockets with the session cookie. */
  corsOrigins?: '*' | readonly string[]
}

/**
 * The heartbeat's beat: every beat pings the sockets of one slice, so each socket is pinged once
 * per heartbeat (`SyncSocketLimits.heartbeatMs`) and 10,000 sockets cost the thread under a
 * millisecond each beat, rather than one stall of 200 ms every 30 s.
 */
const HEARTBEAT_BEAT_MS = 100

/** The clock poll with no way to listen: how late a write made elsewhere may reach devices. */
const POLL_MS = 50
/** The clock poll behind LISTEN: only a safety net for an announcement lost with a dropped connection. */
const POLL_BEHIND_LISTEN_MS = 1000
/**
 * The clock poll when the store announces its own commits in this process (the embedded store):
 * no connection can drop an announcement there, so the poll only guards against one never made.
 * Reading 1,275 households' clocks blocks the thread 6-8 ms on the embedded store; each second,
 * that was 1 % of every request's time.
 */
const POLL_IN_PROCESS_MS = 10_000

/** How often the rights clock is read behind the notifications (every session's rights when it moved). */
const RIGHTS_RECHECK_MS = 1000
/** Within how long every session's rights are read again, clock or not (a change made with triggers off). */
const RIGHTS_CYCLE_MS = 60_000

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
  const hub = new SyncHub(store, {
    pollMs:
      configured ??
      (options.databaseUrl ? POLL_BEHIND_LISTEN_MS : store.listen ? POLL_IN_PROCESS_MS : POLL_MS),
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
  // Sessions whose socket closed while their work (a push) may still run: a closing server
  // waits for them, so nothing it acknowledged or committed lands after it stopped.
  const draining = new Set<SyncSession>()
  const drain = (session: SyncSession) => {
    draining.add(session)
    void session.settled().then(() => draining.delete(session))
  }
  const authFailures = options.authFailures ?? new AuthFailures(DEFAULT_RATE_LIMITS)
  // Shared notes (Yjs) ride the same port, keys, rights watch and announcements (docs/api/notes.md).
  const notes = new NoteHub(store, logger.child({ notes: true }), authFailures, Boolean(options.databaseUrl))
  const rights = new RightsWatch(
    store,
    function* () {
      yield* sessions
      yield* notes.sessions
    },
    {
      recheckMs: options.rightsRecheckMs ?? RIGHTS_RECHECK_MS,
      cycleMs: RIGHTS_CYCLE_MS,
      logger,
    },
  )
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
      if (configured === undefined) hub.setPollInterval(POLL_MS)
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
  // Joined sessions (and note sockets) per address; sockets yet to say hello have a budget apart.
  const perAddress = new OpenCounter(limits.maxSocketsPerAddress)
  const unjoined = new UnjoinedSockets<WebSocket>(limits.maxUnjoinedSocketsPerAddress)
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
    const address = (options.clientAddresses ?? new ClientAddresses()).of(
      request.socket.remoteAddress,
      (name) => [request.headers[name]].flat().join(', ') || undefined,
    )
    if (path !== '/sync') {
      if (!parseNotePath(path)) return refuse(socket, '404 Not Found')
      if (notesWss.clients.size >= limits.maxSockets) return refuse(socket, '503 Service Unavailable', 5)
      if (!perAddress.take(address)) return refuse(socket, '429 Too Many Requests', 5)
      const token = noteSocketToken(request, upgradeCredential(request))
      return notesWss.handleUpgrade(request, socket, head, (ws) => {
        ws.once('close', () => perAddress.release(address))
        beat(ws)
        notes.open(ws, request, address, token)
      })
    }
    if (wss.clients.size >= limits.maxSockets) return refuse(socket, '503 Service Unavailable', 5)
    // Only joined sessions fill the address's cap: when it is full, no hello could join.
    if (perAddress.full(address)) return refuse(socket, '429 Too Many Requests', 5)
    wss.handleUpgrade(request, socket, head, (ws) => {
      // Past the budget of sockets yet to say hello, the oldest gives way, as its deadline would.
      const displaced = unjoined.add(address, ws)
      if (displaced) giveWay(displaced)
      open(ws, request, address)
    })
  })

  /**
   * The credential an upgrade carries: `Authorization: Bearer`, or the web app's session cookie when
   * the page that opens the socket is this server's own (a browser sends the cookie to any page's
   * socket, so another site's page must not ride on it).
   */
  function upgradeCredential(request: IncomingMessage): string | undefined {
    const bearer = bearerToken(request.headers.authorization)
    if (bearer) return bearer
    const cookie = sessionCookieOfUpgrade(request.headers)
    if (!cookie) return undefined
    const header = (name: string) => [request.headers[name]].flat().join(', ') || undefined
    return fromSameOrigin(header, options.corsOrigins ?? '*') ? cookie : undefined
  }

  // A device that vanished without closing (sleep, lost network) would hold its session for ever.
  // Each socket answers a ping every heartbeat, in its own slice of the interval.
  const alive = new WeakMap<WebSocket, boolean>()
  const slices = Array.from(
    { length: Math.max(1, Math.round(limits.heartbeatMs / HEARTBEAT_BEAT_MS)) },
    () => new Set<WebSocket>(),
  )
  let joins = 0
  const beat = (ws: WebSocket) => {
    alive.set(ws, true)
    const slice = slices[joins++ % slices.length]!
    slice.add(ws)
    ws.once('close', () => slice.delete(ws))
    ws.on('pong', () => alive.set(ws, true))
  }
  let beats = 0
  const heartbeat = setInterval(() => {
    for (const client of slices[beats++ % slices.length]!) {
      if (alive.get(client) === false) {
        client.terminate()
        continue
      }
      alive.set(client, false)
      client.ping()
    }
  }, limits.heartbeatMs / slices.length)
  heartbeat.unref()

  function open(ws: WebSocket, request: IncomingMessage, address: string): void {
    beat(ws)
    const bearer = upgradeCredential(request)
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
          // The address's cap filled while this socket waited: refused as a key at its cap is.
          if (!perAddress.take(address)) return false
          if (!perKey.take(keyId)) {
            perAddress.release(address)
            return false
          }
          unjoined.remove(address, ws)
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
        pageRows: options.pageRows,
      },
      bearer,
    )
    sessions.add(session)
    ws.on('message', (data, isBinary) => {
      if (!isBinary) session.receive(data.toString())
    })
    ws.on('close', () => {
      clearTimeout(helloTimer)
      unjoined.remove(address, ws)
      if (keyHeld) {
        perKey.release(keyHeld)
        perAddress.release(address)
      }
      sessions.delete(session)
      session.disconnected()
      drain(session)
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
    for (const session of sessions) {
      session.close()
      drain(session)
    }
    notes.close()
    for (const client of notesWss.clients) client.terminate()
    notesWss.close()
    for (const client of wss.clients) client.terminate()
    presence.close()
    wss.close()
    // A push still running commits (or rolls back) before the close completes: a server that
    // starts next on the same store, or the store closing, never races a write of this one
    // whose devices were never told of it (found by test/sync/convergence.property.test.ts).
    // (At most DRAIN_MS: work that hangs past it is cut off when the store closes, unacknowledged.)
    const settled = Promise.race([
      Promise.all([...draining].map((session) => session.settled())),
      new Promise((resolve) => setTimeout(resolve, DRAIN_MS).unref()),
    ])
    return close((err) => void settled.then(() => callback?.(err)))
  }) as Server['close']
  return hub
}

/** How long a closing server waits for its sessions' running work. */
const DRAIN_MS = 10_000

/** Answers an upgrade that will not be served, and closes the connection. */
function refuse(socket: Duplex, status: string, retryAfterSeconds?: number): void {
  const retry = retryAfterSeconds ? `Retry-After: ${retryAfterSeconds}\r\n` : ''
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n${retry}Content-Length: 0\r\n\r\n`)
}

/**
 * Closes a socket that did not say hello as its deadline would (4408), and drops it a second
 * later if its peer never answers the close, so sockets given way cannot pile up while closing.
 */
function giveWay(ws: WebSocket): void {
  ws.close(4408, 'HELLO_TIMEOUT')
  setTimeout(() => ws.terminate(), 1000).unref()
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
