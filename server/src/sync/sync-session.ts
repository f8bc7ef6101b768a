import {
  type ClientMessage,
  ClientMessageSchema,
  type ServerMessage,
  SYNC_PROTOCOL_VERSION,
  type SyncMutation,
} from '@hearth/contracts'
import { EngineError, householdVersion, type Store } from '@hearth/engine'
import {
  type HouseholdDelta,
  type ReaderOptions,
  readableChanges,
  readDelta,
  readDigest,
  readSnapshot,
  SYNC_JOIN_SCOPE,
  syncDb,
} from '@hearth/engine/sync'
import type { Logger } from 'pino'
import type { AuthFailures } from '../http/rate-limits.ts'
import { authenticateToken, type Device, joinHousehold, sameScopes } from './devices.ts'
import type { PresenceIdentity, PresenceMember, PresenceRooms } from './presence-rooms.ts'
import { pushMutations, rejectionsSince } from './push.ts'
import { type CurrentRights, type GuardedSession, readRights, type SessionHolder } from './session-rights.ts'
import type { HubMember, SyncHub } from './sync-hub.ts'

/** The socket under a session, reduced to what the protocol needs. */
export interface SyncTransport {
  send(text: string): void
  close(code: number, reason: string): void
  /** The session joined with this key: false when the key already holds all the sessions it may. */
  joined?(keyId: string): boolean
  /** The client's address, for the failed-authentication limit. */
  address?: string
}

/** What every session shares. */
export interface SyncDeps {
  store: Store
  hub: SyncHub
  presence: PresenceRooms
  logger: Logger
  /** Failed authentications, counted with REST's. */
  authFailures?: AuthFailures
  /** Pushes per device per second; more wait their turn. */
  pushesPerSecond?: number
  /** Devices a member may bind per household. */
  maxDevices?: number
  /** Rows per snapshot or delta page (2,000 when unset). */
  pageRows?: number
}

/** Digests a device may ask for at once, and how often it earns another (ms). */
const CHECK_BURST = 5
const CHECK_REFILL_MS = 10_000

type Outgoing = ServerMessage extends infer M ? (M extends { v: number } ? Omit<M, 'v'> : never) : never

/**
 * One device's connection. Messages are handled one at a time, in arrival order, on one queue
 * that also carries the deltas the hub asks for, so a device sees its push result before the
 * delta that confirms it, and never two deltas at once.
 */
export class SyncSession implements HubMember, PresenceMember, GuardedSession {
  householdId = ''
  clientId = ''
  presenceIdentity: PresenceIdentity = { userId: '', clientId: '', deviceName: null }
  /** The version this device's replica is at, as far as this session has sent. */
  cursor: number | null = null
  private device: Device | null = null
  /** `holder`, for the device record it was built from. */
  private heldBy: { device: Device | null; holder: SessionHolder | null } | null = null
  private sentLmid = -1
  /**
   * The version the device itself was last told of. It stays behind `cursor` (what this session
   * has read) while only changes the device may not read land, so the device learns nothing of
   * activity it cannot see; the next delta it gets starts here.
   */
  private told: number | null = null
  /** The device's lmid as this session last saw it (welcome, its own pushes); null if unsure. */
  private knownLmid: number | null = null
  private chain: Promise<void> = Promise.resolve()
  private deltaQueued = false
  private offered: HouseholdDelta | null = null
  private closed = false
  /** Rights are being read again: no rows go out meanwhile (see `suspend`). */
  private suspended = false
  /** Rows were held back while suspended: catch up once the rights allow. */
  private owed = false
  /** The push bucket: pushes this device may make now, and when it was last filled. */
  private pushTokens = Number.POSITIVE_INFINITY
  private pushRefilledAt = 0
  /** The check bucket: digests this device may ask for now (see `check`). */
  private checkTokens = CHECK_BURST
  private checkRefilledAt = 0

  constructor(
    private readonly transport: SyncTransport,
    private readonly deps: SyncDeps,
    private readonly headerToken?: string,
  ) {}

  /** A text frame from the device. */
  receive(text: string): void {
    this.enqueue(() => this.handle(text))
  }

  /** Who this session acts as, once it joined. */
  get holder(): SessionHolder | null {
    const device = this.device
    // Built once per device record: the rights watch asks every session each second.
    if (this.heldBy?.device !== device)
      this.heldBy = {
        device,
        holder: device
          ? { keyId: device.keyId, userId: device.userId, householdId: device.householdId }
          : null,
      }
    return this.heldBy.holder
  }

  /**
   * A change to this session's key or membership committed: deliver nothing until its rights
   * are read again (`applyRights`), so no row leaves after a revocation that this instance heard.
   */
  suspend(): void {
    this.suspended = true
  }

  /**
   * Applies rights read from the store: a revoked key, an ended membership or a lost
   * `read:households` closes the session for good, with a close code and reason a device can
   * show (docs/sync.md); changed scopes make the device start over from a snapshot of what it may
   * read now; a changed role is used from the next push on.
   */
  applyRights(rights: CurrentRights): void {
    const device = this.device
    if (!device || this.closed) return
    const ended = !rights.scopes
      ? new EngineError(401, 'KEY_REVOKED', 'The API key has been revoked.')
      : !rights.role
        ? new EngineError(404, 'MEMBERSHIP_ENDED', 'The key’s user is no longer a member of this household.')
        : !rights.scopes.includes(SYNC_JOIN_SCOPE)
          ? new EngineError(403, 'SCOPE_REVOKED', `The API key no longer has the scope ${SYNC_JOIN_SCOPE}.`)
          : null
    if (ended || !rights.scopes || !rights.role) {
      this.fail(ended)
      return
    }
    const scopesChanged = !sameScopes(device.scopes, rights.scopes)
    this.device = { ...device, scopes: rights.scopes, role: rights.role }
    this.suspended = false
    if (scopesChanged && this.cursor !== null) {
      this.owed = false
      this.enqueue(async () => this.reset('RIGHTS_CHANGED'))
    } else if (this.owed) {
      this.owed = false
      this.householdChanged()
    }
  }

  householdChanged(): void {
    if (this.suspended) {
      this.owed = true
      return
    }
    if (this.deltaQueued || !this.device || this.closed) return
    this.deltaQueued = true
    this.enqueue(async () => {
      this.deltaQueued = false
      await this.sendDelta()
    })
  }

  /**
   * Sends the part of a household delta this device lacks and may read, in turn with its other
   * messages. Offers that pile up behind a long push are folded: only the newest is sent.
   */
  offer(delta: HouseholdDelta): void {
    if (this.suspended) {
      this.owed = true
      return
    }
    if (!this.device || this.closed) return
    const queued = this.offered !== null
    this.offered = delta
    if (queued) return
    this.enqueue(async () => {
      const newest = this.offered
      this.offered = null
      if (newest) await this.deliver(newest)
    })
  }

  private async deliver(delta: HouseholdDelta): Promise<void> {
    const device = this.device!
    const cursor = this.cursor
    if (this.suspended) {
      this.owed = true
      return
    }
    if (cursor === null || delta.version < cursor) return
    if (delta.floor > cursor) return this.reset('LOG_WINDOW')
    // Read from before this session's start: read afresh instead.
    if (delta.since > cursor) return this.sendDelta()
    const lmid = delta.lmids.get(device.clientId) ?? Math.max(this.sentLmid, 0)
    const changes = readableChanges(
      delta.changes.filter((c) => c.version > cursor),
      device,
    )
    this.cursor = delta.version
    if (changes.length === 0 && lmid === this.sentLmid) return
    this.send({
      type: 'delta',
      fromVersion: this.told ?? cursor,
      version: delta.version,
      lmid,
      changes,
      more: false,
    })
    this.told = delta.version
    this.sentLmid = lmid
  }

  /** The socket closed: stop following the household. */
  disconnected(): void {
    if (this.closed) return
    this.closed = true
    this.deps.hub.leave(this)
    this.deps.presence.leave(this)
  }

  /** Other devices' presence states, as an awareness update. */
  sendPresence(update: Uint8Array): void {
    this.send({ type: 'presence', update: Buffer.from(update).toString('base64') })
  }

  /**
   * Resolves once the work this session started has ended: a push running when its socket
   * closed commits or rolls back first (a server closing waits for it; see attachSync).
   */
  async settled(): Promise<void> {
    for (let chain = this.chain; ; chain = this.chain) {
      await chain
      if (chain === this.chain) return
    }
  }

  /** Closes the socket from the server's side (shutdown). */
  close(code = 1001, reason = 'server shutting down'): void {
    this.disconnected()
    this.transport.close(code, reason)
  }

  private enqueue(task: () => Promise<void>): void {
    this.chain = this.chain.then(task).catch((error) => this.fail(error))
  }

  private send(message: Outgoing): void {
    if (this.closed) return
    this.transport.send(JSON.stringify({ v: SYNC_PROTOCOL_VERSION, ...message }))
  }

  private fail(error: unknown, fatal = true): void {
    if (error instanceof EngineError) {
      this.send({ type: 'error', code: error.code, message: error.message, fatal })
      if (fatal) this.close(4000 + error.status, error.code)
      return
    }
    this.deps.logger.error({ err: error, clientId: this.device?.clientId }, 'sync session failed')
    this.send({ type: 'error', code: 'INTERNAL', message: 'Something went wrong on our side.', fatal: true })
    this.close(1011, 'INTERNAL')
  }

  private async handle(text: string): Promise<void> {
    if (this.closed) return
    let raw: unknown
    try {
      raw = JSON.parse(text)
    } catch {
      return this.fail(new EngineError(400, 'MALFORMED_MESSAGE', 'A sync message must be JSON.'), false)
    }
    if ((raw as { v?: unknown } | null)?.v !== SYNC_PROTOCOL_VERSION) {
      return this.fail(
        new EngineError(
          400,
          'PROTOCOL_VERSION',
          `This server speaks sync protocol v${SYNC_PROTOCOL_VERSION}.`,
        ),
      )
    }
    const parsed = ClientMessageSchema.safeParse(raw)
    if (!parsed.success) {
      return this.fail(new EngineError(400, 'INVALID_MESSAGE', parsed.error.issues[0]?.message ?? ''), false)
    }
    const message = parsed.data
    if (message.type === 'ping') return this.send({ type: 'pong' })
    if (message.type === 'hello') return this.hello(message)
    if (!this.device) {
      return this.fail(new EngineError(400, 'HELLO_FIRST', 'Send hello before any other message.'))
    }
    if (message.type === 'push') return this.push(message.mutations)
    if (message.type === 'check') return this.check()
    if (message.type === 'presence') {
      return this.deps.presence.receive(this, new Uint8Array(Buffer.from(message.update, 'base64')))
    }
    return this.pull(message.cursor)
  }

  private async hello(message: Extract<ClientMessage, { type: 'hello' }>) {
    if (this.device) {
      return this.fail(new EngineError(409, 'ALREADY_JOINED', 'This socket already joined.'), false)
    }
    const { store, hub, authFailures } = this.deps
    const token = message.token ?? this.headerToken
    const address = this.transport.address ?? 'unknown'
    // The key is checked first; only a failure is counted (and past the limits answered 429).
    const verify = () => authenticateToken(store, token)
    const caller = await (authFailures ? authFailures.attempt(address, token, verify) : verify())
    const device = await joinHousehold(
      store,
      caller,
      message.householdId,
      message.clientId,
      message.deviceName,
      this.deps.maxDevices,
    )
    if (this.transport.joined && !this.transport.joined(caller.keyId)) {
      throw new EngineError(
        429,
        'TOO_MANY_SESSIONS',
        'This API key already holds as many open sync sessions as it may; close one or use another key.',
      )
    }
    this.device = device
    this.householdId = device.householdId
    this.clientId = device.clientId
    this.presenceIdentity = {
      userId: device.userId,
      // What the device calls itself (its record may carry a derived id; see joinHousehold).
      clientId: message.clientId,
      deviceName: message.deviceName ?? null,
    }
    // Follow the household before reading, so a change committed after the read still wakes us.
    hub.join(this)
    const version = await householdVersion(store.db, device.householdId)
    const record = await syncDb(store.db)
      .selectFrom('sync_clients')
      .select('lmid')
      .where('client_id', '=', device.clientId)
      .executeTakeFirstOrThrow()
    this.knownLmid = record.lmid
    this.send({
      type: 'welcome',
      clientId: message.clientId,
      householdId: device.householdId,
      userId: device.userId,
      role: device.role,
      scopes: device.scopes,
      version,
      lmid: record.lmid,
      rejections: message.pendingFrom
        ? await rejectionsSince(store, device.clientId, message.pendingFrom)
        : [],
    })
    await this.catchUp(message.cursor, version)
    if (!this.closed) this.deps.presence.join(this)
  }

  private async pull(cursor: number | null): Promise<void> {
    // Read the rights again first: a missed notification must not leave a snapshot open to a
    // revoked key.
    const [rights] = await readRights(this.deps.store.db, [this.holder!])
    this.applyRights(rights!)
    if (this.closed) return
    await this.catchUp(cursor, await householdVersion(this.deps.store.db, this.householdId))
  }

  /**
   * Brings the device from `cursor` to now: a delta, a snapshot when it has nothing to start from,
   * or a `reset` when its cursor cannot be served. After a reset the device pushes its queue and
   * then asks for the snapshot (`pull` with a null cursor), so its mutations are in it.
   */
  private async catchUp(cursor: number | null, version: number): Promise<void> {
    if (cursor === null) return this.sendSnapshot()
    if (cursor > version) return this.reset('CURSOR_AHEAD')
    this.cursor = cursor
    this.told = cursor
    this.sentLmid = -1
    await this.sendDelta()
  }

  private reset(reason: 'CURSOR_AHEAD' | 'LOG_WINDOW' | 'RIGHTS_CHANGED'): void {
    this.cursor = null
    this.told = null
    this.send({ type: 'reset', reason })
  }

  private async push(mutations: SyncMutation[]): Promise<void> {
    await this.pushTurn()
    const { store, hub, logger } = this.deps
    const known = this.knownLmid
    // Unsure until this push has answered (it may fail half done).
    this.knownLmid = null
    const outcome = await pushMutations(store, this.device!, mutations, logger, {}, known ?? undefined)
    this.device = outcome.device
    this.knownLmid = outcome.lmid
    this.send({ type: 'pushResult', lmid: outcome.lmid, results: outcome.results })
    // The rows the push wrote go straight to the household's devices; otherwise they read.
    if (outcome.committed) hub.offer(this.householdId, outcome.committed)
    else hub.notify(this.householdId)
  }

  /**
   * Waits until this device may push again: a token bucket of `pushesPerSecond`, so a device
   * pushing back to back is slowed to its share rather than refused (its queue stays as it is).
   */
  private async pushTurn(): Promise<void> {
    const rate = this.deps.pushesPerSecond
    if (!rate) return
    const now = performance.now()
    this.pushTokens = Math.min(rate, this.pushTokens + ((now - this.pushRefilledAt) * rate) / 1000)
    this.pushRefilledAt = now
    if (this.pushTokens < 1) {
      const waitMs = ((1 - this.pushTokens) * 1000) / rate
      await new Promise((resolve) => setTimeout(resolve, waitMs))
      this.pushTokens = 1
      this.pushRefilledAt = performance.now()
    }
    this.pushTokens -= 1
  }

  private async sendDelta(): Promise<void> {
    const device = this.device
    if (this.cursor === null || !device || this.closed) return
    if (this.suspended) {
      this.owed = true
      return
    }
    const from = this.cursor
    let opened = false
    // Each page starts where the last one sent ended (the device checks it), also when a page
    // between them was all invisible and not sent.
    let sentTo = this.told ?? from
    const position = await readDelta(
      this.deps.store.db,
      device.householdId,
      from,
      readerOf(device, this.deps.pageRows),
      (page) => {
        // Pages with nothing the device may read are not sent: unless one before them was, a
        // delta that is all invisible never reaches the device at all.
        if (page.changes.length === 0 && page.lmid === this.sentLmid && (page.more || !opened)) return
        this.send({ type: 'delta', ...page, fromVersion: sentTo })
        sentTo = page.version
        opened = true
      },
    )
    if (position.behind) return this.reset('LOG_WINDOW')
    this.cursor = Math.max(from, position.version)
    if (opened) {
      this.told = this.cursor
      this.sentLmid = position.lmid
    }
  }

  /**
   * Answers `check`: first whatever delta the device lacks, then a digest of the rows it may
   * read, at the version it will be at once it applied that delta. When the household moved
   * between the two reads, the digest's version is null and the device compares another time.
   */
  private async check(): Promise<void> {
    const device = this.device!
    // A digest reads every row the device may hold: a few per minute per device, in a burst of
    // CHECK_BURST; past that the answer is inconclusive, and the device compares later.
    const now = performance.now()
    this.checkTokens = Math.min(
      CHECK_BURST,
      this.checkTokens + (now - this.checkRefilledAt) / CHECK_REFILL_MS,
    )
    this.checkRefilledAt = now
    if (this.checkTokens < 1 || this.cursor === null || this.suspended) {
      return this.send({ type: 'digest', version: null, tables: [] })
    }
    this.checkTokens -= 1
    await this.sendDelta()
    if (this.cursor === null || this.suspended || this.closed) {
      return this.send({ type: 'digest', version: null, tables: [] })
    }
    const digest = await readDigest(this.deps.store.db, device.householdId, readerOf(device))
    // Changes past `told` up to `cursor` are ones this device may not read: the rows it may
    // read are the same at both, and `told` is the version the device holds.
    const pinned = digest.version === this.cursor ? this.told : null
    this.send({ type: 'digest', version: pinned, tables: digest.tables })
  }

  private async sendSnapshot(): Promise<void> {
    const device = this.device!
    const position = await readSnapshot(
      this.deps.store.db,
      device.householdId,
      readerOf(device, this.deps.pageRows),
      (page, at) =>
        this.send({ type: 'snapshot', version: at.version, lmid: at.lmid, tables: [page], more: true }),
    )
    this.send({ type: 'snapshot', version: position.version, lmid: position.lmid, tables: [], more: false })
    this.cursor = position.version
    this.told = position.version
    this.sentLmid = position.lmid
    // A change committed while the snapshot streamed was announced before this session had a
    // cursor, so the fan-out passed it by: look once more.
    await this.sendDelta()
  }
}

/** What the read policy judges a device by: its key's scopes, and its member for row rules. */
function readerOf(device: Device, pageSize?: number): ReaderOptions {
  return {
    clientId: device.clientId,
    scopes: device.scopes,
    userId: device.userId,
    role: device.role,
    pageSize,
  }
}
