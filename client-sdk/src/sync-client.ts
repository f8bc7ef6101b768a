import {
  type MutationResult,
  type ServerMessage,
  ServerMessageSchema,
  SYNC_PROTOCOL_VERSION,
  type SyncMutation,
} from '@hearth/contracts'
import type { Role, Scope } from '@hearth/engine'
import type { RowChangeInput, TableDigest, TableRows } from '@hearth/engine/sync'
import type { Credentials } from './device-credential.ts'
import type { Emitter } from './emitter.ts'
import { missingReadScopes } from './missing-scopes.ts'
import { fromBase64, type Presence, type PresenceEntry, toBase64 } from './presence.ts'
import type { Incoming, PendingMutation, RebaseOutcome, Replica } from './replica.ts'

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
   * While a snapshot loads (the first sync, or a replica rebuilt from the server): the rows that
   * have arrived and the rows the replica has loaded so far, for a progress line ("12,000 rows
   * loaded"); null otherwise. A `status` event follows each page.
   */
  snapshot: SnapshotProgress | null
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

/** How far a snapshot has come: rows received from the server, and rows loaded into the replica. */
export interface SnapshotProgress {
  receivedRows: number
  loadedRows: number
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
   * whose rows may have changed, while a live query is open; null means any table. A local
   * mutation names itself in `mutation`: its id is what `mutate.activity.undoMutation` takes.
   */
  change: {
    source: 'local' | 'sync'
    tables: readonly string[] | null
    mutation?: { id: number; name: string }
  }
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
  /**
   * A comparison with the server found the replica's rows different (`tables`), and a snapshot
   * replaced them; the replica is at `version` now. See docs/sync.md, Replicas check themselves.
   */
  'replica.repaired': { tables: string[]; version: number }
}

/** What comparing the replica with the server found. */
export interface ReplicaCheck {
  /**
   * `match`: the same rows as the server's for this key; `repaired`: `tables` differed and a
   * snapshot replaced the replica; `inconclusive`: no comparison was possible now (offline,
   * mutations pending, the household moved meanwhile).
   */
  outcome: 'match' | 'repaired' | 'inconclusive'
  tables: string[]
}

/** How often a connected device compares its replica with the server, by default: 10 minutes. */
const DEFAULT_CHECK_EVERY_MS = 10 * 60_000

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
  /** What hello sends: an API key or a device's access token; none, and the upgrade's session cookie speaks. */
  credentials: Credentials
  deviceName?: string
  socket: SocketFactory
  /** Reconnect delays: doubling from min to max, with jitter. */
  reconnectMinMs?: number
  reconnectMaxMs?: number
  /** How often to ping a quiet server; a server silent for two rounds is given up on. */
  heartbeatMs?: number
  /** How often to compare the replica with the server while connected (10 min); 0: only on connect. */
  checkEveryMs?: number
}

/**
 * One socket's life and every piece of protocol state that belongs to it. When the socket
 * closes, `closed` is set and the link is dropped: work it queued does not run, and what it had
 * half received (a delta's pages, a snapshot) goes with it.
 */
class Link {
  closed = false
  welcomed = false
  caughtUp = false
  /** The last mutation id pushed on this socket. */
  sentThrough = 0
  /** A delta whose pages are still arriving. */
  partial: AssembledDelta | null = null
  /**
   * Whole deltas received and not yet applied, joined into one (each starts at or before where
   * the one before ended): applied together by the next rebase.
   */
  ready: AssembledDelta | null = null
  /** A snapshot arriving now, applied page by page by a rebase that runs meanwhile. */
  snapshot: { pages: PageStream; applied: Promise<RebaseOutcome> } | null = null
  /** A gap was seen and a resend asked for; later deltas past the gap are dropped meanwhile. */
  resendAsked = false
  /** A comparison with the server is wanted once the replica is idle. */
  checkDue = false
  checkRetries = 0
  /** Callers waiting for the answer to the comparison asked for. */
  checks: ((result: ReplicaCheck) => void)[] = []
  /** The snapshot asked for after a comparison found `tables` different. */
  repairing: { tables: string[]; done: (result: ReplicaCheck) => void } | null = null
  /** The token hello sent on this socket. */
  token: string | undefined = undefined
  /** The server refused a device's access token: renew it, then reconnect. */
  renew = false

  constructor(readonly socket: SocketLike) {}
}

/** A delta as received: its changes lead from version `from` to `version`. */
interface AssembledDelta {
  from: number
  version: number
  lmid: number
  changes: RowChangeInput[]
}

/**
 * The device's side of the protocol: hello, push the queue, apply deltas and snapshots through
 * the replica's rebase, and reconnect with backoff. Incoming messages are handled one at a time.
 */
export class SyncConnection {
  /** The connection now, if any; every piece of protocol state lives on its link. */
  private link: Link | null = null
  private wanted = false
  /** Pushed mutations the replica refused, whose refusal the caller already has. */
  private readonly refusedLocally = new Set<number>()
  /** Pushed mutations the server has not answered yet: when each one's local call ends. */
  private readonly localCalls = new Map<number, { ended: Promise<void>; end: () => void }>()
  private sent = new Map<number, PendingMutation>()
  private resetReason: string | null = null
  private attempts = 0
  private nextRetryAt: Date | null = null
  private timer: ReturnType<typeof setTimeout> | null = null
  private chain: Promise<void> = Promise.resolve()
  private lastHeard = 0
  private heartbeat: ReturnType<typeof setInterval> | null = null
  private lastSyncedAt: Date | null = null
  private failure: SyncFailure | null = null
  /** Renewals of a refused token since the last welcome; a token refused again and again ends sync. */
  private renewals = 0
  /** The offline status last announced, so retries while offline announce nothing new. */
  private lastOffline: string | null = null
  /** The snapshot loading now (its rows counted for `status.snapshot`) until its rebase settles. */
  private loading: PageStream | null = null
  private checkTimer: ReturnType<typeof setInterval> | null = null
  /** Since this instance opened: gaps seen (and resends asked), comparisons made, repairs. */
  gaps = 0
  checks = 0
  repairs = 0

  constructor(
    private readonly replica: Replica,
    private readonly options: SyncConnectionOptions,
    private readonly events: Emitter<HearthEvents>,
    private readonly presence: Presence,
  ) {}

  /** Sends this device's presence update, when joined. */
  sendPresence(update: Uint8Array): void {
    const link = this.link
    if (link?.welcomed) this.send(link, { type: 'presence', update: toBase64(update) })
  }

  get status(): SyncStatus {
    const pending = this.replica.pendingCount
    const link = this.link
    const welcomed = link?.welcomed === true
    // Offline from the moment sync is no longer wanted (disconnect, a refusal), even while the
    // socket's close handshake is still under way.
    const state =
      !welcomed || !this.wanted ? 'offline' : link?.caughtUp && pending === 0 ? 'online' : 'syncing'
    return {
      state,
      pending,
      version: this.replica.identity.version,
      snapshot: this.loading?.progress() ?? null,
      lastSyncedAt: this.lastSyncedAt,
      error: this.failure,
      missingScopes: knownMissingScopes(this.replica),
      nextRetryAt: this.nextRetryAt,
      retryAttempt: welcomed || !this.wanted ? 0 : this.attempts,
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
    if (!this.link) this.open()
    this.startChecks()
  }

  /** Closes the socket and stops reconnecting; local calls keep working offline. */
  async disconnect(): Promise<void> {
    this.wanted = false
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    this.nextRetryAt = null
    if (this.checkTimer) clearInterval(this.checkTimer)
    this.checkTimer = null
    const socket = this.link?.socket
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
    const link = this.link
    if (!link?.welcomed) return
    // The usual case, nothing older unsent: push straight away, without reading the queue back.
    if (link.sentThrough === mutation.id - 1) {
      this.sent.set(mutation.id, mutation)
      this.send(link, { type: 'push', mutations: [toWire(mutation)] })
      link.sentThrough = mutation.id
      return
    }
    this.enqueue(link, () => this.pushPending(link))
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
    const link = this.link
    if (link?.welcomed) this.send(link, { type: 'pull', cursor: this.expectedVersion(link) })
  }

  /**
   * Compares the replica with the server now (see `check` in docs/sync.md): resolves with what
   * the comparison found once the server answered and any repair is done; `inconclusive` when
   * it could not compare (offline, mutations pending, or the household moved meanwhile).
   */
  check(): Promise<ReplicaCheck> {
    const link = this.link
    if (!link?.welcomed || !link.caughtUp || this.replica.pendingCount > 0)
      return Promise.resolve({ outcome: 'inconclusive', tables: [] })
    return new Promise<ReplicaCheck>((resolve) => {
      link.checks.push(resolve)
      if (link.checks.length === 1) this.send(link, { type: 'check' })
    })
  }

  private open(): void {
    const url = `${this.options.serverUrl.replace(/^http/, 'ws').replace(/\/$/, '')}/sync`
    const link = new Link(this.options.socket(url))
    const { socket } = link
    this.link = link
    socket.onopen = () => {
      if (link.closed) return
      this.attempts = 0
      this.lastHeard = Date.now()
      this.startHeartbeat(link)
      this.enqueue(link, () => this.hello(link))
    }
    socket.onmessage = (event) => {
      if (link.closed) return
      this.lastHeard = Date.now()
      const text = typeof event.data === 'string' ? event.data : String(event.data)
      this.enqueue(link, () => this.receive(link, text))
    }
    socket.onerror = () => {}
    socket.onclose = (event) => {
      if (link.closed) return
      // Everything of this connection ends here: its queued tasks are skipped when their turn
      // comes (`enqueue`), its half-received delta and snapshot go with it.
      link.closed = true
      // The server closes with 4401, 4403 or 4404 and the refusal's code as the reason when the
      // key, its scope or the membership is gone; the error message before it may be lost.
      if (link.renew) this.renewAfterRefusal(link)
      else if (!this.failure && TERMINAL_CLOSES.has(event.code) && TERMINAL.has(event.reason)) {
        this.wanted = false
        this.failure = { code: event.reason, message: `The server ended the session: ${event.reason}.` }
        this.events.emit('error', { code: event.reason, message: this.failure.message, fatal: true })
      }
      if (this.link === link) this.link = null
      if (this.heartbeat) clearInterval(this.heartbeat)
      this.heartbeat = null
      // A snapshot cut short is rolled back: its rebase runs in one transaction.
      link.snapshot?.pages.fail(new Error('The connection closed during a snapshot.'))
      link.snapshot = null
      for (const resolve of link.checks.splice(0)) resolve({ outcome: 'inconclusive', tables: [] })
      this.presence.disconnected()
      // Scheduled first, so the status that announces going offline says when the next try is.
      if (this.wanted) this.scheduleReconnect()
      this.emitStatus()
    }
  }

  /** Pings a quiet server, and drops a socket that stopped answering (a half-open connection). */
  private startHeartbeat(link: Link): void {
    const every = this.options.heartbeatMs ?? 25_000
    if (this.heartbeat) clearInterval(this.heartbeat)
    this.heartbeat = setInterval(() => {
      if (link.closed) return
      if (Date.now() - this.lastHeard > 2 * every) link.socket.close(4000, 'server silent')
      else this.send(link, { type: 'ping' })
    }, every)
    ;(this.heartbeat as { unref?: () => void }).unref?.()
  }

  /** Compares the replica with the server every `checkEveryMs` while sync is wanted. */
  private startChecks(): void {
    const every = this.options.checkEveryMs ?? DEFAULT_CHECK_EVERY_MS
    if (this.checkTimer || every <= 0) return
    this.checkTimer = setInterval(() => {
      const link = this.link
      if (!link?.welcomed) return
      link.checkDue = true
      this.checkWhenIdle(link)
    }, every)
    ;(this.checkTimer as { unref?: () => void }).unref?.()
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
      if (this.wanted && !this.link) this.open()
    }, delay)
    this.events.emit('reconnecting', { attempt: this.attempts, at, delayMs: delay })
  }

  /**
   * Queues work of one connection behind everything before it. When its turn comes after that
   * connection closed, it does not run: nothing an old socket started touches a new one.
   */
  private enqueue(link: Link, task: () => Promise<void>): void {
    this.chain = this.chain
      .then(() => (link.closed ? undefined : task()))
      .catch((error) => {
        this.events.emit('error', {
          code: 'CLIENT',
          message: (error as Error).message ?? String(error),
          fatal: false,
        })
        // The replica may be behind what the socket promised; a fresh connection starts over cleanly.
        link.socket.close(4000, 'client error')
      })
  }

  private send(link: Link, message: Record<string, unknown>): void {
    if (!link.closed && link.socket.readyState === 1)
      link.socket.send(JSON.stringify({ v: SYNC_PROTOCOL_VERSION, ...message }))
  }

  /**
   * Renews a refused device token, and reconnects as usual; a device that can no longer renew
   * (signed out, its refresh token reused) ends here, as a revoked key does.
   */
  private renewAfterRefusal(link: Link): void {
    this.renewals++
    void this.options.credentials.refused(link.token).then((renewed) => {
      if (renewed && this.renewals <= 3) return
      const ended = this.options.credentials.ended
      this.end(ended?.code ?? 'UNAUTHENTICATED', ended?.message ?? 'The server refused this device’s token.')
    })
  }

  /** Stops syncing for good after a refusal reconnecting cannot mend. */
  private end(code: string, message: string): void {
    if (this.failure) return
    this.wanted = false
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    this.nextRetryAt = null
    this.failure = { code, message }
    this.events.emit('error', { code, message, fatal: true })
    this.emitStatus()
  }

  private async hello(link: Link): Promise<void> {
    const first = (await this.replica.pendingAfter(0, 1))[0]
    link.sentThrough = 0
    link.token = await this.options.credentials.token()
    const ended = this.options.credentials.ended
    if (ended) {
      this.end(ended.code, ended.message)
      link.socket.close(1000, 'signed out')
      return
    }
    this.send(link, {
      type: 'hello',
      token: link.token,
      householdId: this.replica.identity.householdId,
      clientId: this.replica.identity.clientId,
      deviceName: this.options.deviceName,
      cursor: this.replica.identity.version,
      ...(first && { pendingFrom: first.id }),
    })
  }

  private async receive(link: Link, text: string): Promise<void> {
    let message: ServerMessage
    try {
      message = ServerMessageSchema.parse(JSON.parse(text))
    } catch {
      throw new Error('The server sent a message this client does not understand.')
    }
    try {
      await this.handle(link, message)
    } finally {
      // Any word from a server that has nothing more for us confirms the replica is up to date.
      if (this.status.state === 'online') this.lastSyncedAt = new Date()
    }
  }

  private async handle(link: Link, message: ServerMessage): Promise<void> {
    switch (message.type) {
      case 'welcome':
        this.renewals = 0
        return this.welcome(link, message)
      case 'snapshot': {
        const snapshot = link.snapshot ?? this.startSnapshot(link, message.version, message.lmid)
        for (const page of message.tables) snapshot.pages.push(page)
        if (!message.more) await this.finishSnapshot(link, snapshot)
        return
      }
      case 'delta':
        return this.deltaPage(link, message)
      case 'pushResult':
        return this.rejections(message.results)
      case 'reset':
        // The queue went out after welcome; the snapshot asked for now will include it.
        this.resetReason = message.reason
        link.caughtUp = false
        this.send(link, { type: 'pull', cursor: null })
        return
      case 'digest':
        // Compared once every delta received before it is applied (they are queued already).
        this.enqueue(link, () => this.compare(link, message))
        return
      case 'error':
        // A device's access token that lapsed is renewed when the socket closes, not an end.
        if (message.code === 'UNAUTHENTICATED' && !link.welcomed && this.options.credentials.renewable) {
          link.renew = true
          return
        }
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

  private async welcome(link: Link, message: Extract<ServerMessage, { type: 'welcome' }>): Promise<void> {
    await this.replica.saveIdentity({
      userId: message.userId,
      role: message.role as Role,
      scopes: message.scopes as Scope[],
      lmid: message.lmid,
    })
    link.welcomed = true
    link.caughtUp = false
    // Every reconnect compares the replica with the server once it has caught up.
    link.checkDue = true
    this.presence.connected()
    await this.rejections(message.rejections)
    this.emitStatus()
    await this.pushPending(link)
  }

  /**
   * The version the replica will be at once every delta received so far is applied: the
   * replica's own, or the end of the deltas waiting for their rebase.
   */
  private expectedVersion(link: Link): number | null {
    return link.ready?.version ?? this.replica.identity.version
  }

  /**
   * One page of a delta. Pages join their delta only when each starts where the last ended; a
   * whole delta joins the ones waiting for a rebase only when it starts at or before the
   * version they lead to (see `Link.ready`). A delta that starts past it would leave a gap: it
   * is dropped, and the server is asked once to send again from that version.
   */
  private deltaPage(link: Link, page: Extract<ServerMessage, { type: 'delta' }>): void {
    const partial = link.partial
    if (partial && page.fromVersion !== partial.version) {
      link.partial = null
      this.gap(link)
      return
    }
    const delta = partial ?? { from: page.fromVersion, version: page.fromVersion, lmid: 0, changes: [] }
    for (const change of page.changes) delta.changes.push(change)
    delta.version = page.version
    delta.lmid = page.lmid
    if (page.more) {
      link.partial = delta
      return
    }
    link.partial = null
    const expected = this.expectedVersion(link)
    if (expected === null || delta.from > expected) {
      this.gap(link)
      return
    }
    // Wholly behind the replica (sent before a resend this device asked for): nothing new.
    if (delta.version < expected) return
    // Starting at or before `expected` is safe: rows are whole images applied in commit order,
    // so a version the replica already holds is written again as it is (docs/sync.md).
    link.resendAsked = false
    const ready = link.ready
    if (ready) {
      for (const change of delta.changes) ready.changes.push(change)
      ready.version = delta.version
      ready.lmid = delta.lmid
      return
    }
    link.ready = delta
    this.enqueue(link, () => this.applyDelta(link))
  }

  /** A delta that would skip changes: asks the server to send again from the replica's version. */
  private gap(link: Link): void {
    if (link.resendAsked) return
    link.resendAsked = true
    link.caughtUp = false
    this.gaps++
    const cursor = this.expectedVersion(link)
    // No version yet: a snapshot is what the replica lacks.
    this.send(link, { type: 'pull', cursor })
  }

  private async applyDelta(link: Link): Promise<void> {
    const delta = link.ready
    if (!delta) return
    link.ready = null
    const { from, changes, version, lmid } = delta
    const pendingBefore = this.replica.pendingCount
    const outcome = await this.rebase(link, { kind: 'delta', fromVersion: from, changes, version, lmid })
    if (changes.length > 0 || outcome.confirmed.length > 0 || pendingBefore !== outcome.pending) {
      this.events.emit('change', { source: 'sync', tables: outcome.tables && [...outcome.tables] })
    }
  }

  /** Starts the rebase that applies a snapshot's pages as they arrive. */
  private startSnapshot(link: Link, version: number, lmid: number) {
    // Older deltas still waiting are superseded: the snapshot holds everything up to its version.
    link.partial = null
    link.ready = null
    link.resendAsked = false
    const pages = new PageStream(() => this.emitStatus())
    this.loading = pages
    const applied = this.replica.rebase({ kind: 'snapshot', tables: pages, version, lmid })
    // Once applied or rolled back, its rows are no longer loading.
    applied.then(
      () => this.loaded(pages),
      () => this.loaded(pages),
    )
    link.snapshot = { pages, applied }
    return link.snapshot
  }

  private loaded(pages: PageStream): void {
    if (this.loading !== pages) return
    this.loading = null
    this.emitStatus()
  }

  private async finishSnapshot(
    link: Link,
    snapshot: { pages: PageStream; applied: Promise<RebaseOutcome> },
  ): Promise<void> {
    snapshot.pages.end()
    link.snapshot = null
    this.rebased(link, await snapshot.applied)
    if (this.resetReason) this.events.emit('reset', { reason: this.resetReason })
    this.resetReason = null
    const repair = link.repairing
    link.repairing = null
    this.events.emit('change', { source: 'sync', tables: null })
    if (repair) {
      const version = this.replica.identity.version!
      this.events.emit('replica.repaired', { tables: repair.tables, version })
      repair.done({ outcome: 'repaired', tables: repair.tables })
    }
  }

  private async rebase(link: Link, incoming: Incoming): Promise<RebaseOutcome> {
    return this.rebased(link, await this.replica.rebase(incoming))
  }

  private rebased(link: Link, outcome: RebaseOutcome): RebaseOutcome {
    for (const id of outcome.confirmed) this.sent.delete(id)
    link.caughtUp = true
    this.emitStatus()
    this.checkWhenIdle(link)
    return outcome
  }

  /** Asks for a comparison when one is due and the replica holds only the server's rows. */
  private checkWhenIdle(link: Link): void {
    if (!link.checkDue || !link.caughtUp || link.closed || this.replica.pendingCount > 0) return
    if (link.ready || link.partial || link.snapshot || link.checks.length > 0) return
    link.checkDue = false
    void this.check()
  }

  /**
   * The server's digest of what this device may read, at the version this replica is at after
   * every delta sent before it: the replica's own digest must be the same, table by table. A
   * table that differs means the replica lost or kept a row it should not have; a snapshot
   * replaces it, and `replica.repaired` names the tables.
   */
  private async compare(link: Link, digest: Extract<ServerMessage, { type: 'digest' }>): Promise<void> {
    const waiting = link.checks.splice(0)
    const answer = (result: ReplicaCheck) => {
      for (const resolve of waiting) resolve(result)
    }
    const version = this.replica.identity.version
    if (
      digest.version === null ||
      digest.version !== version ||
      link.ready ||
      link.partial ||
      this.replica.pendingCount > 0
    ) {
      // The household moved meanwhile, or this device wrote: compare later.
      this.checkRetry(link)
      return answer({ outcome: 'inconclusive', tables: [] })
    }
    const local = await this.replica.digest()
    // The replica changed while it read (a mutation or a rebase ran meanwhile).
    if (!local || this.replica.identity.version !== version || this.replica.pendingCount > 0) {
      this.checkRetry(link)
      return answer({ outcome: 'inconclusive', tables: [] })
    }
    const differing = differingTables(digest.tables, local.tables)
    this.checks++
    if (differing.length === 0) return answer({ outcome: 'match', tables: [] })
    this.repairs++
    link.repairing = { tables: differing, done: answer }
    link.caughtUp = false
    this.emitStatus()
    this.send(link, { type: 'pull', cursor: null })
  }

  /** An inconclusive comparison is tried again a little later (a few times per due check). */
  private checkRetry(link: Link): void {
    if (link.checkRetries >= 5) return
    link.checkRetries++
    const timer = setTimeout(() => {
      if (link.closed) return
      link.checkDue = true
      this.checkWhenIdle(link)
    }, 500 * link.checkRetries)
    ;(timer as { unref?: () => void }).unref?.()
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

  private async pushPending(link: Link): Promise<void> {
    if (!link.welcomed) return
    while (!link.closed) {
      const pending = await this.replica.pendingAfter(link.sentThrough, 500)
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
      if (link.closed) return
      for (const m of batch) this.sent.set(m.id, m)
      this.send(link, { type: 'push', mutations })
      link.sentThrough = batch.at(-1)!.id
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
  private received = 0
  private loaded = 0

  /** `onProgress` runs as each page arrives and as the replica finishes loading each. */
  constructor(private readonly onProgress: () => void) {}

  progress(): SnapshotProgress {
    return { receivedRows: this.received, loadedRows: this.loaded }
  }

  push(page: TableRows): void {
    this.pages.push(page)
    this.received += page.rows.length
    this.notify()
    this.onProgress()
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
        // The replica asks for the next page once it has loaded this one.
        this.loaded += page.rows.length
        this.onProgress()
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

/** The tables whose digests differ between the server's and the replica's, in name order. */
export function differingTables(server: readonly TableDigest[], local: readonly TableDigest[]): string[] {
  const key = (d: TableDigest) => `${d.rows}:${d.hash}`
  const theirs = new Map(server.map((d) => [d.table, key(d)]))
  const ours = new Map(local.map((d) => [d.table, key(d)]))
  const names = new Set([...theirs.keys(), ...ours.keys()])
  // A table with no rows is the same as a table not listed.
  return [...names].filter((t) => (theirs.get(t) ?? '0:0') !== (ours.get(t) ?? '0:0')).sort()
}
