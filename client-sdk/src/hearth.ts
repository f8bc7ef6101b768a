import type { Mutator, Query, Store } from '@hearth/engine'
import { runQuery } from '@hearth/engine'
import { type DeviceMutators, type DeviceQueries, deviceMutators, deviceQueries } from '@hearth/engine/sync'
import type { z } from 'zod'
import { Emitter } from './emitter.ts'
import { Presence, type PresenceEntry } from './presence.ts'
import type { MutationQueue } from './queue/mutation-queue.ts'
import { Replica } from './replica.ts'
import { type HearthEvents, type SocketFactory, SyncConnection, type SyncStatus } from './sync-client.ts'

/** What `createHearth` takes. */
export interface HearthOptions {
  /** The Hearth server, such as `https://hearth.example.com`; omit for a replica that never syncs. */
  serverUrl?: string
  /** An API key of the member this device acts for. */
  token: string
  /** The household id this replica holds. */
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
}

/** What differs between Node and browsers: the store, the durable queue and the socket. */
export interface HearthPlatform {
  openStore(location: string): Promise<Store>
  openQueue(location: string, store: Store): Promise<MutationQueue>
  socket?: SocketFactory
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
      args: z.input<Arg<DeviceMutators[N][V]>>,
    ) => Promise<ResultOf<DeviceMutators[N][V]>>
  }
}

/** Every device query by its registry path (`query.tags.list()`), run on the local replica. */
export type QueryCalls = {
  [N in keyof DeviceQueries]: {
    [V in keyof DeviceQueries[N]]: (
      args?: z.input<Arg<DeviceQueries[N][V]>>,
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
  /** Resolves once connected, caught up and with nothing pending. */
  whenSynced(options?: { timeoutMs?: number }): Promise<void>
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
  on<K extends keyof HearthEvents>(event: K, listener: (payload: HearthEvents[K]) => void): () => void
  /**
   * A live query: calls `listener` with the query's result now and again whenever local or synced
   * data changes it. Returns the unsubscribe function.
   */
  watch<K extends QueryName>(
    name: K,
    args: z.input<Arg<QueryAt<K>>>,
    listener: (result: QueryResultOf<QueryAt<K>>) => void,
    onError?: (error: unknown) => void,
  ): () => void
  close(): Promise<void>
}

/** Opens a replica with the given platform pieces; `createHearth` picks them for you. */
export async function createHearthWith(platform: HearthPlatform, options: HearthOptions): Promise<Hearth> {
  const location = options.store ?? 'memory://'
  const store = await platform.openStore(location)
  let replica: Replica
  try {
    replica = await Replica.open(store, await platform.openQueue(location, store), options.household)
  } catch (error) {
    await store.close()
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
            token: options.token,
            deviceName: options.deviceName,
            socket: platform.socket,
            reconnectMinMs: options.reconnectMinMs,
            reconnectMaxMs: options.reconnectMaxMs,
            heartbeatMs: options.heartbeatMs,
          },
          events,
          presence,
        )
      : null

  const mutate = mapTree(deviceMutators, (mutator: Mutator) => async (args: unknown) => {
    const { mutation: queued, result } = await replica.mutate(mutator.name, args)
    connection?.localMutation(queued)
    events.emit('change', { source: 'local' })
    return result
  }) as MutateCalls

  const query = mapTree(
    deviceQueries,
    (q: Query) =>
      (args: unknown = {}) =>
        runQuery(store.db, q, args, replica.context(new Date())),
  ) as QueryCalls

  const offline: SyncStatus = { state: 'offline', pending: 0, version: null }
  const sync: HearthSync = {
    get status() {
      return (
        connection?.status ?? { ...offline, pending: replica.pendingCount, version: replica.identity.version }
      )
    },
    connect: () => connection?.connect(),
    disconnect: async () => connection?.disconnect(),
    pull: () => connection?.pull(),
    whenSynced: (opts = {}) => whenOnline(events, () => sync.status, opts.timeoutMs ?? 30_000),
  }

  if (connection && options.connect !== false) connection.connect()

  return {
    householdId: options.household,
    clientId: replica.identity.clientId,
    store,
    mutate,
    query,
    sync,
    presence: { set: (state) => presence.set(state), list: () => presence.list() },
    on: (event, listener) => events.on(event, listener),
    watch(name, args, listener, onError) {
      const [noun, verb] = (name as string).split('.') as [string, string]
      const run = (query as unknown as Record<string, Record<string, (a: unknown) => Promise<unknown>>>)[
        noun
      ]![verb]!
      let last: string | undefined
      let stopped = false
      let running: Promise<void> = Promise.resolve()
      const refresh = () => {
        running = running.then(async () => {
          if (stopped) return
          try {
            const result = await run(args)
            const text = JSON.stringify(result)
            if (!stopped && text !== last) {
              last = text
              listener(result as never)
            }
          } catch (error) {
            onError?.(error)
          }
        })
      }
      const off = events.on('change', refresh)
      refresh()
      return () => {
        stopped = true
        off()
      }
    },
    async close() {
      presence.set(null)
      await connection?.disconnect()
      presence.destroy()
      await replica.close()
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

function whenOnline(
  events: Emitter<HearthEvents>,
  status: () => SyncStatus,
  timeoutMs: number,
): Promise<void> {
  if (status().state === 'online') return Promise.resolve()
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off()
      reject(new Error(`Not synced after ${timeoutMs} ms: ${JSON.stringify(status())}`))
    }, timeoutMs)
    const off = events.on('status', (s) => {
      if (s.state !== 'online') return
      clearTimeout(timer)
      off()
      resolve()
    })
  })
}
