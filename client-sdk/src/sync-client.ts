import {
  type MutationResult,
  type ServerMessage,
  ServerMessageSchema,
  SYNC_PROTOCOL_VERSION,
  type SyncMutation,
} from '@hearth/contracts'
import type { Role, Scope } from '@hearth/engine'
import type { RowChangeInput, TableRows } from '@hearth/engine/sync'
import type { Emitter } from './emitter.ts'
import { missingReadScopes } from './missing-scopes.ts'
import { fromBase64, type Presence, type PresenceEntry, toBase64 } from './presence.ts'
import type { Incoming, PendingMutation, Replica } from './replica.ts'

/** The part of a browser `WebSocket` sync uses; the `ws` package's class fits it too. */
export interface SocketLike {
  readonly readyState: number
  send(data: string): void
  close(code?: number, reason?: string): void
  onopen: ((event: unknown) => void) | null
  onmessage: ((event: { data: unknown }) => void) | null
  onclose: ((event: { code: number; reason: string }) => void) | null
  onerror: ((event: unknown) => void) | null
}

/** Opens a socket to a URL; Node passes the `ws` package, browsers the global WebSocket. */
export type SocketFactory = (url: string) => SocketLike

/** Where sync stands: connected and caught up, catching up, or not connected. */
export interface SyncStatus {
  state: 'online' | 'syncing' | 'offline'
  /** Local mutations the server has not confirmed yet. */
  pending: number
  /** The server version the replica's synced rows are at; null before the first snapshot. */
  version: number | null
  /**
   * When the server last confirmed this replica up to date (caught up, nothing pending), since
   * this instance opened; null before that. Show it while offline: "last synced 5 minutes ago".
   */
  lastSyncedAt: Date | null
  /** The refusal that stopped sync (a revoked key, a missing scope); null while sync can go on. */
  error: SyncFailure | null
  /**
   * Read scopes of synced data the key lacks: the replica holds none of those rows, and a query
   * that reads them throws `INSUFFICIENT_SCOPE`. Empty until the server first let the device in.
   */
  missingScopes: Scope[]
  /**
   * While offline and sync still wanted: when the next reconnect attempt starts, for a countdown
   * ("retrying in 4 s"); null while connected, while an attempt is under way, after
   * `disconnect()` and once a refusal stopped sync. `sync.connect()` retries at once.
   */
  nextRetryAt: Date | null
  /**
   * The reconnect attempt scheduled or under way since the device was last connected: 1 for the
   * first after a drop, 2 once that one failed, ...; 0 while connected or not reconnecting.
   */
  retryAttempt: number
}

/** A reconnect attempt was scheduled: the `reconnecting` event, one per failed attempt. */
export interface ReconnectingEvent {
  /** Which attempt since the device was last connected: 1 for the first after a drop. */
  attempt: number
  /** When the next attempt starts. */
  at: Date
  /** Its delay from now, in milliseconds. */
  delayMs: number
}

/** A refusal after which reconnecting cannot help until someone changes the key or membership. */
export interface SyncFailure {
  code: string
  message: string
}

/** A pushed mutation the server refused; its local effect is gone after the next rebase. */
export interface RejectedEvent {
  mutation: PendingMutation | { id: number; name?: string; args?: unknown }
  code: string
  message: string
  status?: number
  /** When this device heard of the refusal. */
  at: Date
}

/** Everything a Hearth instance announces. */
export interface HearthEvents extends Record<string, unknown> {
  /**
   * Local data changed: a local mutation, or rows from the server. `tables` names the tables
   * whose rows may have changed, while a live query is open; null means any table.
   */
  change: { source: 'local' | 'sync'; tables: readonly string[] | null }
  rejected: RejectedEvent
  /** The replica was replaced by a snapshot because it could not continue from its cursor. */
  reset: { reason: string }
  status: SyncStatus
  /**
   * The next reconnect attempt was scheduled (after a drop or each failed attempt); for a retry
   * countdown. `status` does not fire for these while the device stays offline.
   */
  reconnecting: ReconnectingEvent
  /** A refusal from the server, such as a revoked key; fatal ones stop reconnecting. */
  error: { code: string; message: string; fatal: boolean }
  /** Who is online changed, or what one of them shares. */
  presence: PresenceEntry[]
}

/** Codes after which reconnecting cannot help until someone changes the key or membership. */
const TERMINAL = new Set([
  'UNAUTHENTICATED',
  'KEY_REVOKED',
  'MEMBERSHIP_ENDED',
  'SCOPE_REVOKED',
  'NOT_FOUND',
  'INSUFFICIENT_SCOPE',
  'CLIENT_MISMATCH',
  'PROTOCOL_VERSION',
])

/** About how many characters of mutations one push frame carries. */
const PUSH_FRAME_BUDGET = 1024 * 1024

/** Close codes of a session the server ended for good (4000 + the refusal's HTTP status). */
const TERMINAL_CLOSES = new Set([4401, 4403, 4404])

/** How sync reaches the server. */
export interface SyncConnectionOptions {
  serverUrl: string
  token: string
  deviceName?: string
  socket: SocketFactory
  /** Reconnect delays: doubling from min to max, with jitter. */
  reconnectMinMs?: number
  reconnectMaxMs?: number
  /** How often to ping a quiet server; a server silent for two rounds is given up on. */
  heartbeatMs?: number
}

/**
 * The device's side of the protocol: hello, push the queue, apply deltas and snapshots through
 * the replica's rebase, and reconnect with backoff. Incoming messages are handled one at a time.
 */
export class SyncConnection {
  private socket: SocketLike | null = null
  private wanted = false
  private welcomed = false
  private caughtUp = false
  private sentThrough = 0
  /** Pushed mutations the replica refused, whose refusal the caller already has. */
  private readonly refusedLocally = new Set<number>()
  /** Pushed mutations the server has not answered yet: when each one's local call ends. */
  private readonly localCalls = new Map<number, { ended: Promise<void>; end: () => void }>()
  private sent = new Map<number, PendingMutation>()
  private deltaPages: RowChangeInput[] = []
  /** Where the deltas received so far lead; applied together by one rebase. */
  private deltaTarget: { version: number; lmid: number } | null = null
  /** The snapshot arriving now, applied page by page by a rebase that runs meanwhile. */
  private snapshot: { pages: PageStream; applied: Promise<unknown> } | null = null
  private resetReason: string | null = null
  private attempts = 0
  private nextRetryAt: Date | null = null
  private timer: ReturnType<typeof setTimeout> | null = null
  private chain: Promise<void> = Promise.resolve()
  private lastHeard = 0
  private heartbeat: ReturnType<typeof setInterval> | null = null
  private lastSyncedAt: Date | null = null
  private failure: SyncFailure | null = null
  /** The offline status last announced, so retries while offline announce nothing new. */
  private lastOffline: string | null = null

  constructor(
    private readonly replica: Replica,
    private readonly options: SyncConnectionOptions,
    private readonly events: Emitter<HearthEvents>,
    private readonly presence: Presence,
  ) {}

  /** Sends this device's presence update, when joined. */
  sendPresence(update: Uint8Array): void {
    if (this.welcomed) this.send({ type: 'presence', update: toBase64(update) })
  }

  get status(): SyncStatus {
    const pending = this.replica.pendingCount
    // Offline from the moment sync is no longer wanted (disconnect, a refusal), even while the
    // socket's close handshake is still under way.
    const state =
      !this.welcomed || !this.wanted ? 'offline' : this.caughtUp && pending === 0 ? 'online' : 'syncing'
    return {
      state,
      pending,
      version: this.replica.identity.version,
      lastSyncedAt: this.lastSyncedAt,
      error: this.failure,
      missingScopes: knownMissingScopes(this.replica),
      nextRetryAt: this.nextRetryAt,
      retryAttempt: this.welcomed || !this.wanted ? 0 : this.attempts,
    }
  }

  /** Connects, and keeps reconnecting after drops until `disconnect`. */
  connect(): void {
    this.wanted = true
    this.failure = null
    this.attempts = 0
    // A reconnect that was waiting starts now.
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    this.nextRetryAt = null
    if (!this.socket) this.open()
  }

  /** Closes the socket and stops reconnecting; local calls keep working offline. */
  async disconnect(): Promise<void> {
    this.wanted = false
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    this.nextRetryAt = null
    const socket = this.socket
    if (socket) {
      const closed = new Promise<void>((resolve) => {
        const previous = socket.onclose
        socket.onclose = (event) => {
          previous?.(event)
          resolve()
        }
      })
      socket.close(1000, 'disconnect')
      // A server that vanished never answers the close handshake; do not wait on it for ever.
      let timer: ReturnType<typeof setTimeout> | undefined
      await Promise.race([closed, new Promise((resolve) => (timer = setTimeout(resolve, 2000)))])
      clearTimeout(timer)
    }
    await this.chain
  }

  /**
   * Pushes a local mutation now if connected: called as the local call starts, once the mutation
   * is checked and its id reserved, so the server runs it while the replica does.
   */
  push(mutation: PendingMutation): void {
    let end!: () => void
    const ended = new Promise<void>((resolve) => {
      end = resolve
    })
    this.localCalls.set(mutation.id, { ended, end })
    // The usual case, nothing older unsent: push straight away, without reading the queue back.
    if (this.welcomed && this.sentThrough === mutation.id - 1) {
      this.sent.set(mutation.id, mutation)
      this.send({ type: 'push', mutations: [toWire(mutation)] })
      this.sentThrough = mutation.id
      return
    }
    this.enqueue(() => this.pushPending())
  }

  /**
   * A local call is over. If the replica refused a mutation this device already pushed, the
   * caller has the error, so a refusal from the server is not announced again (and an
   * application by the server arrives as any change does).
   */
  settled(mutation: PendingMutation, refused: boolean): void {
    if (refused) {
      this.sent.delete(mutation.id)
      this.refusedLocally.add(mutation.id)
    }
    this.localCalls.get(mutation.id)?.end()
  }

  /** A local mutation was committed: the pending count changed. */
  localMutation(): void {
    this.emitStatus()
  }

  /** Asks the server for everything since the replica's version. */
  pull(): void {
    this.send({ type: 'pull', cursor: this.replica.identity.version })
  }

  private open(): void {
    const url = `${this.options.serverUrl.replace(/^http/, 'ws').replace(/\/$/, '')}/sync`
    const socket = this.options.socket(url)
    this.socket = socket
    socket.onopen = () => {
      if (this.socket !== socket) return
      this.attempts = 0
      this.lastHeard = Date.now()
      this.startHeartbeat(socket)
      this.enqueue(() => this.hello())
    }
    socket.onmessage = (event) => {
      if (this.socket !== socket) return
      this.lastHeard = Date.now()
      const text = typeof event.data === 'string' ? event.data : String(event.data)
      this.enqueue(() => this.receive(text))
    }
    socket.onerror = () => {}
    socket.onclose = (event) => {
      if (this.socket !== socket) return
      // The server closes with 4401, 4403 or 4404 and the refusal's code as the reason when the
      // key, its scope or the membership is gone; the error message before it may be lost.
      if (!this.failure && TERMINAL_CLOSES.has(event.code) && TERMINAL.has(event.reason)) {
        this.wanted = false
        this.failure = { code: event.reason, message: `The server ended the session: ${event.reason}.` }
        this.events.emit('error', { code: event.reason, message: this.failure.message, fatal: true })
      }
      this.socket = null
      if (this.heartbeat) clearInterval(this.heartbeat)
      this.heartbeat = null
      this.welcomed = false
      this.caughtUp = false
      this.deltaPages = []
      this.deltaTarget = null
      // A snapshot cut short is rolled back: its rebase runs in one transaction.
      this.snapshot?.pages.fail(new Error('The connection closed during a snapshot.'))
      this.snapshot = null
      this.presence.disconnected()
      // Scheduled first, so the status that announces going offline says when the next try is.
      if (this.wanted) this.scheduleReconnect()
      this.emitStatus()
    }
  }

  /** Pings a quiet server, and drops a socket that stopped answering (a half-open connection). */
  private startHeartbeat(socket: SocketLike): void {
    const every = this.options.heartbeatMs ?? 25_000
    if (this.heartbeat) clearInterval(this.heartbeat)
    this.heartbeat = setInterval(() => {
      if (this.socket !== socket) return
      if (Date.now() - this.lastHeard > 2 * every) socket.close(4000, 'server silent')
      else this.send({ type: 'ping' })
    }, every)
    ;(this.heartbeat as { unref?: () => void }).unref?.()
  }

  private scheduleReconnect(): void {
    const min = this.options.reconnectMinMs ?? 100
    const max = this.options.reconnectMaxMs ?? 5000
    const delay = Math.round(Math.min(max, min * 2 ** this.attempts++) * (0.5 + Math.random() / 2))
    const at = new Date(Date.now() + delay)
    this.nextRetryAt = at
    this.timer = setTimeout(() => {
      this.timer = null
      this.nextRetryAt = null
      if (this.wanted && !this.socket) this.open()
    }, delay)
    this.events.emit('reconnecting', { attempt: this.attempts, at, delayMs: delay })
  }

  private enqueue(task: () => Promise<void>): void {
    this.chain = this.chain.then(task).catch((error) => {
      this.events.emit('error', {
        code: 'CLIENT',
        message: (error as Error).message ?? String(error),
        fatal: false,
      })
      // The replica may be behind what the socket promised; a fresh connection starts over cleanly.
      this.socket?.close(4000, 'client error')
    })
  }

  private send(message: Record<string, unknown>): void {
    if (this.socket?.readyState === 1)
      this.socket.send(JSON.stringify({ v: SYNC_PROTOCOL_VERSION, ...message }))
  }

  private async hello(): Promise<void> {
    const first = (await this.replica.pendingAfter(0, 1))[0]
    this.sentThrough = 0
    this.send({
      type: 'hello',
      token: this.options.token,
      householdId: this.replica.identity.householdId,
      clientId: this.replica.identity.clientId,
      deviceName: this.options.deviceName,
      cursor: this.replica.identity.version,
      ...(first && { pendingFrom: first.id }),
    })
  }

  private async receive(text: string): Promise<void> {
    let message: ServerMessage
    try {
      message = ServerMessageSchema.parse(JSON.parse(text))
    } catch {
      throw new Error('The server sent a message this client does not understand.')
    }
    try {
      await this.handle(message)
    } finally {
      // Any word from a server that has nothing more for us confirms the replica is up to date.
      if (this.status.state === 'online') this.lastSyncedAt = new Date()
    }
  }

  private async handle(message: ServerMessage): Promise<void> {
    switch (message.type) {
      case 'welcome':
        return this.welcome(message)
      case 'snapshot': {
        const snapshot = this.snapshot ?? this.startSnapshot(message.version, message.lmid)
        for (const page of message.tables) snapshot.pages.push(page)
        if (!message.more) await this.finishSnapshot(snapshot)
        return
      }
      case 'delta':
        this.deltaPages.push(...message.changes)
        if (!message.more) {
          // Deltas that arrive while a rebase runs are applied together by the next one.
          if (!this.deltaTarget) this.enqueue(() => this.applyDelta())
          this.deltaTarget = { version: message.version, lmid: message.lmid }
        }
        return
      case 'pushResult':
        return this.rejections(message.results)
      case 'reset':
        // The queue went out after welcome; the snapshot asked for now will include it.
        this.resetReason = message.reason
        this.caughtUp = false
        this.send({ type: 'pull', cursor: null })
        return
      case 'error':
        if (message.fatal && TERMINAL.has(message.code)) {
          this.wanted = false
          this.failure = { code: message.code, message: message.message }
        }
        this.events.emit('error', { code: message.code, message: message.message, fatal: message.fatal })
        if (this.failure) this.emitStatus()
        return
      case 'presence':
        this.presence.receive(fromBase64(message.update))
        return
      case 'pong':
        return
    }
  }

  private async welcome(message: Extract<ServerMessage, { type: 'welcome' }>): Promise<void> {
    await this.replica.saveIdentity({
      userId: message.userId,
      role: message.role as Role,
      scopes: message.scopes as Scope[],
      lmid: message.lmid,
    })
    this.welcomed = true
    this.caughtUp = false
    this.presence.connected()
    await this.rejections(message.rejections)
    this.emitStatus()
    await this.pushPending()
  }

  private async applyDelta(): Promise<void> {
    const target = this.deltaTarget
    if (!target) return
    const { version, lmid } = target
    this.deltaTarget = null
    const changes = this.deltaPages
    this.deltaPages = []
    const pendingBefore = this.replica.pendingCount
    const outcome = await this.rebase({ kind: 'delta', changes, version, lmid })
    if (changes.length > 0 || outcome.confirmed.length > 0 || pendingBefore !== outcome.pending) {
      this.events.emit('change', { source: 'sync', tables: outcome.tables && [...outcome.tables] })
    }
  }

  /** Starts the rebase that applies a snapshot's pages as they arrive. */
  private startSnapshot(version: number, lmid: number) {
    // Older deltas still waiting are superseded: the snapshot holds everything up to its version.
    this.deltaPages = []
    this.deltaTarget = null
    const pages = new PageStream()
    const applied = this.rebase({ kind: 'snapshot', tables: pages, version, lmid })
    applied.catch(() => {})
    this.snapshot = { pages, applied }
    return this.snapshot
  }

  private async finishSnapshot(snapshot: { pages: PageStream; applied: Promise<unknown> }): Promise<void> {
    snapshot.pages.end()
    this.snapshot = null
    await snapshot.applied
    if (this.resetReason) this.events.emit('reset', { reason: this.resetReason })
    this.resetReason = null
    this.events.emit('change', { source: 'sync', tables: null })
  }

  private async rebase(incoming: Incoming) {
    const outcome = await this.replica.rebase(incoming)
    for (const id of outcome.confirmed) this.sent.delete(id)
    this.caughtUp = true
    this.emitStatus()
    return outcome
  }

  private async rejections(results: readonly MutationResult[]): Promise<void> {
    for (const r of results) {
      const local = this.localCalls.get(r.id)
      if (r.status !== 'rejected') {
        this.localCalls.delete(r.id)
        this.refusedLocally.delete(r.id)
        continue
      }
      // The server may answer before the replica does: a refusal waits for the local verdict
      // (`settled` ends it through this same entry, so it leaves the map only afterwards).
      await local?.ended
      this.localCalls.delete(r.id)
      if (this.refusedLocally.delete(r.id)) continue
      const mutation = this.sent.get(r.id) ??
        (await this.replica.pendingAfter(r.id - 1, 1)).find((m) => m.id === r.id) ?? { id: r.id }
      this.events.emit('rejected', {
        mutation,
        code: r.code ?? 'REJECTED',
        message: r.message ?? '',
        status: r.httpStatus,
        at: new Date(),
      })
    }
  }

  private async pushPending(): Promise<void> {
    if (!this.welcomed) return
    while (true) {
      const pending = await this.replica.pendingAfter(this.sentThrough, 500)
      if (pending.length === 0) return
      // A frame stays well under the server's push frame limit (4 MiB by default): at most about
      // 1 MiB of mutations, and always at least one.
      const batch: PendingMutation[] = []
      const mutations: ReturnType<typeof toWire>[] = []
      let bytes = 0
      for (const m of pending) {
        const wire = toWire(m)
        bytes += JSON.stringify(wire.args ?? null).length + 64
        if (batch.length > 0 && bytes > PUSH_FRAME_BUDGET) break
        batch.push(m)
        mutations.push(wire)
      }
      for (const m of batch) this.sent.set(m.id, m)
      this.send({ type: 'push', mutations })
      this.sentThrough = batch.at(-1)!.id
    }
  }

  private emitStatus(): void {
    const status = this.status
    if (status.state === 'online') this.lastSyncedAt = new Date()
    // Each failed reconnect attempt closes a socket; offline staying offline is no news (the
    // `reconnecting` event carries the countdown).
    const { nextRetryAt: _at, retryAttempt: _n, ...news } = status
    const offline = status.state === 'offline' ? JSON.stringify(news) : null
    if (offline !== null && offline === this.lastOffline) return
    this.lastOffline = offline
    this.events.emit('status', this.status)
  }
}

/** Snapshot pages handed from the socket to a running rebase, in order. */
class PageStream implements AsyncIterable<TableRows> {
  private readonly pages: TableRows[] = []
  private done = false
  private failure: Error | null = null
  private wake: (() => void) | null = null

  push(page: TableRows): void {
    this.pages.push(page)
    this.notify()
  }

  end(): void {
    this.done = true
    this.notify()
  }

  fail(error: Error): void {
    this.failure = error
    this.notify()
  }

  private notify(): void {
    this.wake?.()
    this.wake = null
  }

  async *[Symbol.asyncIterator](): AsyncIterator<TableRows> {
    while (true) {
      if (this.failure) throw this.failure
      const page = this.pages.shift()
      if (page) {
        yield page
        continue
      }
      if (this.done) return
      await new Promise<void>((resolve) => {
        this.wake = resolve
      })
    }
  }
}

function toWire(m: PendingMutation): SyncMutation {
  return { id: m.id, name: m.name, args: m.args, clientTime: m.at }
}

/** The read scopes the replica's key lacks, once a welcome told it the key's scopes. */
export function knownMissingScopes(replica: Replica): Scope[] {
  return replica.identity.userId === null ? [] : missingReadScopes(replica.identity.scopes)
}
