import type { Mutator, Query, Scope, Store } from '@hearth/engine'
import { parseArgs, runQuery } from '@hearth/engine'
import { type DeviceMutators, type DeviceQueries, deviceMutators, deviceQueries } from '@hearth/engine/sync'
import type { z } from 'zod'
import { type HearthAi, hearthAi } from './ai.ts'
import { type CredentialStore, Credentials, type DeviceCredentialOptions } from './device-credential.ts'
import { Emitter } from './emitter.ts'
import { resolveHousehold } from './household-ref.ts'
import { assertReadable } from './missing-scopes.ts'
import { withNewIds } from './new-ids.ts'
import { type HearthNote, type NoteCacheFactory, type NoteTarget, openNote } from './notes.ts'
import { Presence, type PresenceEntry } from './presence.ts'
import type { MutationQueue } from './queue/mutation-queue.ts'
import { Replica } from './replica.ts'
import { type WithRestNames, withRestNames } from './rest-arguments.ts'
import {
  type HearthEvents,
  knownMissingScopes,
  type RejectedEvent,
  type ReplicaCheck,
  type SocketFactory,
  SyncConnection,
  type SyncStatus,
} from './sync-client.ts'
import { TableReads } from './table-reads.ts'
import { whenSynced } from './when-synced.ts'

/** How many refused mutations `sync.rejected` keeps. */
const REJECTED_KEPT = 100

/** What `createHearth` takes. */
export interface HearthOptions {
  /** The Hearth server, such as `https://hearth.example.com`; omit for a replica that never syncs. */
  serverUrl?: string
  /**
   * An API key of the member this device acts for. Left out in a browser page served by the
   * server, the page's session cookie signs sync, notes and REST calls in instead (docs/client.md).
   */
  token?: string
  /**
   * A signed-in device's credential (`signInDevice`, `POST /devices`) instead of `token`: the tokens
   * with an `onRotate` callback that persists each renewed pair, or a `CredentialStore` that loads
   * and saves it. The SDK renews the access token before it ends and when the server refuses it,
   * for REST calls and the sync socket alike (docs/client.md).
   */
  deviceCredential?: DeviceCredentialOptions | CredentialStore
  /**
   * The household id this replica holds, or `current` for the key's default household, which
   * the server names once (needs `serverUrl`); a store that holds one household reopens on it
   * offline.
   */
  household: string
  /** `memory://` (the default), a folder in Node, or `idb://name` in browsers. */
  store?: string
  /** Shown to the household's members as this device's name. */
  deviceName?: string
  /** Connect at once (default true); otherwise call `sync.connect()`. */
  connect?: boolean
  reconnectMinMs?: number
  reconnectMaxMs?: number
  /** How often a quiet connection is pinged (25 s); a server silent for two rounds is left. */
  heartbeatMs?: number
  /**
   * How often a connected device compares its replica with the server (`sync.check`), in
   * milliseconds: 600,000 (10 minutes) by default; 0 compares only on each (re)connect.
   */
  checkEveryMs?: number
  /**
   * Where a new browser replica (`idb://name`) gets its data folder: a tarball of a replica
   * already made and migrated (`makeReplicaTemplate`; the web app serves it beside its code), so
   * the device skips initdb and every migration. Answering null, or a template that does not open,
   * makes the replica the long way.
   */
  replicaTemplate?: () => Promise<Blob | null>
}

/** How a platform opens a store: `template` as in `HearthOptions.replicaTemplate`. */
export interface StoreOpening {
  template?: () => Promise<Blob | null>
}

/** What differs between Node and browsers: the store, the durable queue and the socket. */
export interface HearthPlatform {
  openStore(location: string, opening?: StoreOpening): Promise<Store>
  openQueue(location: string, store: Store): Promise<MutationQueue>
  socket?: SocketFactory
  /** Where shared notes are cached on the device (none: notes live only while open). */
  noteCache?: NoteCacheFactory
  /** The WebSocket class y-websocket opens note sockets with. */
  noteSocket?: unknown
}

/** Shared notes on accounts, categories, budget months and transactions (Yjs; docs/api/notes.md). */
export interface HearthNotes {
  /**
   * Opens the note on `target`: at once from the device's cache, then live with the server.
   * Edit `note.text` (a Y.Text); close the note when done.
   */
  open(target: NoteTarget): Promise<HearthNote>
}

type ResultOf<M> = M extends Mutator<z.ZodType, infer R, never> ? R : never
type QueryResultOf<Q> = Q extends Query<z.ZodType, infer R, never> ? R : never

/**
 * Every device mutator by its registry path (`mutate.tags.create(args)`), as a call that answers
 * from the local replica at once and is pushed to the server under the same name.
 */
export type MutateCalls = {
  [N in keyof DeviceMutators]: {
    [V in keyof DeviceMutators[N]]: (
      args: V extends 'create' | 'bulkCreate'
        ? NewIdsOptional<z.input<Arg<DeviceMutators[N][V]>>>
        : WithRestNames<`${N & string}.${V & string}`, z.input<Arg<DeviceMutators[N][V]>>>,
    ) => Promise<ResultOf<DeviceMutators[N][V]>>
  }
}

/** A create call's arguments with the new rows' ids optional: `mutate` fills a missing one. */
type NewIdsOptional<T> = {
  [K in keyof T as K extends 'id' ? never : K]: T[K] extends readonly (infer E)[]
    ? E extends { id: string }
      ? NewIdsOptional<E>[]
      : T[K]
    : T[K]
} & (T extends { id: string } ? { id?: string } : unknown)

/** Every device query by its registry path (`query.tags.list()`), run on the local replica. */
export type QueryCalls = {
  [N in keyof DeviceQueries]: {
    [V in keyof DeviceQueries[N]]: (
      args?: WithRestNames<`${N & string}.${V & string}`, z.input<Arg<DeviceQueries[N][V]>>>,
    ) => Promise<QueryResultOf<DeviceQueries[N][V]>>
  }
}

type Arg<O> = O extends { args: infer S extends z.ZodType } ? S : never

/** A device query's name, `noun.verb`, as `watch` takes it. */
export type QueryName = {
  [N in keyof DeviceQueries]: `${N & string}.${keyof DeviceQueries[N] & string}`
}[keyof DeviceQueries]
type QueryAt<Name> = Name extends `${infer N extends keyof DeviceQueries & string}.${infer V}`
  ? V extends keyof DeviceQueries[N]
    ? DeviceQueries[N][V]
    : never
  : never

/** The sync side of a Hearth instance. */
export interface HearthSync {
  readonly status: SyncStatus
  connect(): void
  disconnect(): Promise<void>
  /** Asks the server for anything new now, instead of waiting for it to push. */
  pull(): void
  /**
   * Resolves once connected, caught up and with nothing pending. Rejects at once with a
   * `HearthError` when the server refused this device (its code: `UNAUTHENTICATED`,
   * `INSUFFICIENT_SCOPE`, `NOT_FOUND`, ...), and with `SYNC_TIMEOUT` after `timeoutMs` (30 s).
   * Resolves with the read scopes the key lacks: data under them is not on the device, and a query
   * that reads it throws `INSUFFICIENT_SCOPE` rather than answer as if it were empty.
   */
  whenSynced(options?: { timeoutMs?: number }): Promise<{ missingScopes: Scope[] }>
  /** Mutations the server refused, newest first (at most 100, since this instance opened). */
  readonly rejected: readonly RejectedEvent[]
  /**
   * Compares the replica with the server's rows for this key now, and repairs it from a snapshot
   * when a table differs (the `replica.repaired` event names them). A device does this by itself
   * on every connect and every `checkEveryMs`; `inconclusive` while offline or with mutations
   * pending.
   */
  check(): Promise<ReplicaCheck>
}

/** Who else is online in the household, over the sync socket (y-protocols awareness). */
export interface HearthPresence {
  /** Shares a small state (the screen this device shows, say); never put ledger data here. */
  set(state: Record<string, unknown> | null): void
  /** Every device online now, with what it shares; this device first once it shares a state. */
  list(): PresenceEntry[]
}

/** A household replica on this device, syncing with the server when it can. */
export interface Hearth {
  readonly householdId: string
  readonly clientId: string
  /** The local store, for reads the queries do not cover. */
  readonly store: Store
  readonly mutate: MutateCalls
  readonly query: QueryCalls
  readonly sync: HearthSync
  readonly presence: HearthPresence
  readonly notes: HearthNotes
  /** The assistant's consent calls (they need `serverUrl`). */
  readonly ai: HearthAi
  on<K extends keyof HearthEvents>(event: K, listener: (payload: HearthEvents[K]) => void): () => void
  /**
   * A live query: calls `listener` with the query's result now and again whenever local or synced
   * data changes it. Returns the unsubscribe function.
   */
  watch<K extends QueryName>(
    name: K,
    args: WithRestNames<K, z.input<Arg<QueryAt<K>>>>,
    listener: (result: QueryResultOf<QueryAt<K>>) => void,
    onError?: (error: unknown) => void,
  ): () => void
  /** Counters for apps and benchmarks: how often live queries ran. */
  readonly stats: HearthStats
  close(): Promise<void>
}

/** What a Hearth instance counts. */
export interface HearthStats {
  /**
   * How many times live queries (`watch`) ran, first runs included. A change re-runs only the
   * live queries that read a table it touched.
   */
  readonly liveQueryRuns: number
  /**
   * How many times a rebase replayed a pending mutation on top of the server's rows. The echo of
   * this device's own mutations, matching what they wrote here, replays nothing.
   */
  readonly replays: number
  /** Deltas that would have left a gap, dropped and asked for again from the replica's version. */
  readonly syncGaps: number
  /** Comparisons of the replica with the server that compared, and those that found a difference. */
  readonly replicaChecks: number
  readonly replicaRepairs: number
}

/** Opens a replica with the given platform pieces; `createHearth` picks them for you. */
export async function createHearthWith(platform: HearthPlatform, options: HearthOptions): Promise<Hearth> {
  const location = options.store ?? 'memory://'
  const credentials = new Credentials(options.serverUrl, options.token, options.deviceCredential)
  // Opened once: when the household is known, or the server cannot be reached to name it.
  const opened: { store?: Store } = {}
  const openStore = async () =>
    (opened.store ??= await platform.openStore(location, { template: options.replicaTemplate }))
  let store: Store
  let replica: Replica
  try {
    const householdId = await resolveHousehold(options, credentials, openStore)
    store = await openStore()
    replica = await Replica.open(store, await platform.openQueue(location, store), householdId)
  } catch (error) {
    credentials.close()
    await opened.store?.close()
    throw error
  }
  const events = new Emitter<HearthEvents>()
  let connection: SyncConnection | null = null
  const presence = new Presence(
    (update) => connection?.sendPresence(update),
    () => ({
      userId: replica.identity.userId ?? '',
      clientId: replica.identity.clientId,
      deviceName: options.deviceName ?? null,
    }),
    () => events.emit('presence', presence.list()),
  )
  connection =
    options.serverUrl && platform.socket
      ? new SyncConnection(
          replica,
          {
            serverUrl: options.serverUrl,
            credentials,
            deviceName: options.deviceName,
            socket: platform.socket,
            reconnectMinMs: options.reconnectMinMs,
            reconnectMaxMs: options.reconnectMaxMs,
            heartbeatMs: options.heartbeatMs,
            checkEveryMs: options.checkEveryMs,
          },
          events,
          presence,
        )
      : null

  const rejected: RejectedEvent[] = []
  events.on('rejected', (event) => {
    // A refusal the device missed is repeated at the next welcome; the history keeps it once.
    if (rejected.some((r) => r.mutation.id === event.mutation.id)) return
    rejected.unshift(event)
    if (rejected.length > REJECTED_KEPT) rejected.pop()
  })

  const mutate = mapTree(deviceMutators, (mutator: Mutator) => async (args: unknown) => {
    const named = withRestNames(mutator.name, args)
    const { result } = await replica.mutate(mutator.name, withNewIds(mutator, named), {
      push: (queued) => connection?.push(queued),
      // The live queries re-run as soon as the replica shows the change (in a browser, while
      // the queue record is still being written: see Replica.mutate).
      applied: (mutation, tables) => {
        connection?.localMutation()
        events.emit('change', {
          source: 'local',
          tables: tables && [...tables],
          mutation: { id: mutation.id, name: mutation.name },
        })
      },
      settled: (queued, refused) => connection?.settled(queued, refused),
    })
    return result
  }) as MutateCalls

  /** Runs a device query, refusing an answer read from tables the key may not sync. */
  const readQuery = async (q: Query, args: unknown, db = store.db) => {
    const ctx = replica.context(new Date())
    const tracker = new TableReads()
    const result = await runQuery(db.withPlugin(tracker), q, args, ctx)
    if (replica.identity.userId !== null) assertReadable(tracker.tables, ctx.scopes)
    return { result, tables: tracker.tables }
  }
  const query = mapTree(
    deviceQueries,
    (q: Query) =>
      async (args: unknown = {}) =>
        (await readQuery(q, withRestNames(q.name, args))).result,
  ) as QueryCalls
  const stats = { liveQueryRuns: 0 }
  let watching = 0

  const sync: HearthSync = {
    get status(): SyncStatus {
      return (
        connection?.status ?? {
          state: 'offline',
          pending: replica.pendingCount,
          version: replica.identity.version,
          snapshot: null,
          lastSyncedAt: null,
          error: null,
          missingScopes: knownMissingScopes(replica),
          nextRetryAt: null,
          retryAttempt: 0,
        }
      )
    },
    connect: () => connection?.connect(),
    disconnect: async () => connection?.disconnect(),
    pull: () => connection?.pull(),
    whenSynced: async (opts = {}) => {
      await whenSynced(events, () => sync.status, opts.timeoutMs ?? 30_000)
      return { missingScopes: sync.status.missingScopes }
    },
    get rejected() {
      return [...rejected]
    },
    check: async () => connection?.check() ?? { outcome: 'inconclusive', tables: [] },
  }

  if (connection && options.connect !== false) connection.connect()

  const openNotes = new Set<HearthNote>()
  const notes: HearthNotes = {
    async open(target) {
      const note = await openNote(
        {
          serverUrl: options.serverUrl,
          token: await credentials.token(),
          householdId: replica.identity.householdId,
          location,
          cache: platform.noteCache,
          socketClass: platform.noteSocket,
          user: { name: options.deviceName ?? null },
        },
        target,
      )
      openNotes.add(note)
      const close = note.close.bind(note)
      return Object.assign(note, {
        close: async () => {
          openNotes.delete(note)
          await close()
        },
      })
    },
  }

  return {
    householdId: replica.identity.householdId,
    clientId: replica.identity.clientId,
    store,
    mutate,
    query,
    sync,
    presence: { set: (state) => presence.set(state), list: () => presence.list() },
    notes,
    ai: hearthAi(options.serverUrl, credentials, replica.identity.householdId),
    on: (event, listener) => events.on(event, listener),
    watch(name, restArgs, listener, onError) {
      const [noun, verb] = (name as string).split('.') as [string, string]
      const q = (deviceQueries as unknown as Record<string, Record<string, Query>>)[noun]?.[verb]
      if (!q) throw new TypeError(`No device query is named ${name as string}.`)
      let args: unknown
      try {
        args = withRestNames(q.name, restArgs)
        parseArgs(q.args, args)
      } catch (error) {
        // Arguments that can never run are reported once, not again at every later change.
        afterThisTask(() => onError?.(error))
        return () => {}
      }
      let last: string | undefined
      /** The error last reported, so the same refusal is not reported at every change. */
      let lastError: string | undefined
      let stopped = false
      let running: Promise<void> = Promise.resolve()
      // The tables the query read in any run so far; null until the first run finishes.
      let reads: Set<string> | null = null
      let stale = false
      const refresh = () => {
        if (stale) return
        stale = true
        // In a task of its own: the call that changed the data answers its caller first (a local
        // mutation's `await` resumed after this query ran, and took 1 ms longer at 300 tags).
        afterThisTask(() => {
          running = running.then(run)
        })
      }
      const run = async () => {
        stale = false
        if (stopped) return
        stats.liveQueryRuns++
        const tracker = new TableReads()
        try {
          const { result } = await readQuery(q, args, store.db.withPlugin(tracker))
          reads = new Set([...(reads ?? []), ...tracker.tables])
          lastError = undefined
          const text = JSON.stringify(result)
          if (!stopped && text !== last) {
            last = text
            listener(result as never)
          }
        } catch (error) {
          reads = new Set([...(reads ?? []), ...tracker.tables])
          const said = `${(error as { code?: string }).code}: ${(error as Error).message}`
          if (!stopped && said !== lastError) {
            lastError = said
            onError?.(error)
          }
        }
      }
      const off = events.on('change', ({ tables }) => {
        // Only a change to a table the query reads can change its result.
        if (tables && reads && !tables.some((t) => reads!.has(t))) return
        refresh()
      })
      watching++
      replica.trackTables = true
      refresh()
      return () => {
        if (stopped) return
        stopped = true
        off()
        if (--watching === 0) replica.trackTables = false
      }
    },
    stats: {
      get liveQueryRuns() {
        return stats.liveQueryRuns
      },
      get replays() {
        return replica.replays
      },
      get syncGaps() {
        return connection?.gaps ?? 0
      },
      get replicaChecks() {
        return connection?.checks ?? 0
      },
      get replicaRepairs() {
        return connection?.repairs ?? 0
      },
    },
    async close() {
      for (const note of [...openNotes]) await note.close()
      presence.set(null)
      await connection?.disconnect()
      presence.destroy()
      await replica.close()
      credentials.close()
    },
  }
}

/** Maps a `{ noun: { verb: op } }` tree to the same shape of calls. */
function mapTree<O, C>(tree: object, call: (op: O) => C): Record<string, Record<string, C>> {
  return Object.fromEntries(
    Object.entries(tree as Record<string, Record<string, O>>).map(([noun, verbs]) => [
      noun,
      Object.fromEntries(Object.entries(verbs).map(([verb, op]) => [verb, call(op)])),
    ]),
  )
}

/**
 * Runs `fn` in a task after the current one, once its promise jobs are done: `setImmediate` in
 * Node, a message to itself in browsers (`setTimeout(0)` waits at least 1 ms in Node and is
 * clamped to 4 ms in nested browser timers).
 */
const afterThisTask: (fn: () => void) => void =
  typeof setImmediate === 'function'
    ? (fn) => {
        setImmediate(fn)
      }
    : (() => {
        const waiting: (() => void)[] = []
        const channel = new MessageChannel()
        channel.port1.onmessage = () => waiting.shift()?.()
        return (fn: () => void) => {
          waiting.push(fn)
          channel.port2.postMessage(null)
        }
      })()
