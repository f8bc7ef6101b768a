import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'
import type { Store } from '@hearth/engine'
import type { ServerType } from '@hono/node-server'
import type { OpenAPIHono } from '@hono/zod-openapi'
import { sql } from 'kysely'
import type { Logger } from 'pino'
import { type WebSocket, WebSocketServer } from 'ws'
import type { AppEnv } from '../http/env.ts'
import {
  HOUSEHOLD_CHANNEL,
  listenOnPostgres,
  PRESENCE_CHANNEL,
  parseHouseholdVersion,
} from './postgres-listener.ts'
import { type PresenceRelay, PresenceRooms, type RelayedPresence } from './presence-rooms.ts'
import { syncRoutes } from './routes.ts'
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
}

/** How often the server pings every socket; one that missed the previous ping is dropped. */
const HEARTBEAT_MS = 30_000

/** The clock poll with no way to listen: how late a write made elsewhere may reach devices. */
const POLL_MS = 50
/** The clock poll behind LISTEN: only a safety net for a missed announcement. */
const POLL_BEHIND_LISTEN_MS = 1000

/** Largest sync message a device may send, in bytes. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024

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
  const listener = options.databaseUrl
    ? listenOnPostgres(
        options.databaseUrl,
        {
          [HOUSEHOLD_CHANNEL]: householdChanged,
          [PRESENCE_CHANNEL]: (payload) => presence.relayed(JSON.parse(payload) as RelayedPresence),
        },
        logger,
      )
    : null
  // The embedded store announces its own commits, REST writes included, on its one connection.
  const unlisten = options.databaseUrl
    ? undefined
    : store.listen?.(HOUSEHOLD_CHANNEL, householdChanged).catch((err) => {
        logger.warn({ err }, 'the store cannot announce commits; the clock poll finds them')
        return async () => {}
      })
  const sessions = new Set<SyncSession>()
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES })

  app.route('/', syncRoutes(store, hub))

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname
    if (path !== '/sync') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
      return
    }
    wss.handleUpgrade(request, socket, head, (ws) => open(ws, request))
  })

  // A device that vanished without closing (sleep, lost network) would hold its session for ever.
  const alive = new WeakMap<WebSocket, boolean>()
  const heartbeat = setInterval(() => {
    for (const client of wss.clients) {
      if (alive.get(client) === false) {
        client.terminate()
        continue
      }
      alive.set(client, false)
      client.ping()
    }
  }, HEARTBEAT_MS)
  heartbeat.unref()

  function open(ws: WebSocket, request: IncomingMessage): void {
    alive.set(ws, true)
    ws.on('pong', () => alive.set(ws, true))
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1]
    const session = new SyncSession(
      {
        send: (text) => ws.send(text),
        close: (code, reason) => ws.close(code, reason),
      },
      { store, hub, presence, logger: logger.child({ sync: true }) },
      bearer,
    )
    sessions.add(session)
    ws.on('message', (data, isBinary) => {
      if (!isBinary) session.receive(data.toString())
    })
    ws.on('close', () => {
      sessions.delete(session)
      session.disconnected()
    })
    ws.on('error', (err) => logger.warn({ err }, 'sync socket error'))
  }

  const close = server.close.bind(server)
  server.close = ((callback?: (err?: Error) => void) => {
    hub.close()
    clearInterval(heartbeat)
    void listener?.close()
    void unlisten?.then((stop) => stop()).catch(() => {})
    for (const session of sessions) session.close()
    for (const client of wss.clients) client.terminate()
    presence.close()
    wss.close()
    return close(callback)
  }) as Server['close']
  return hub
}
