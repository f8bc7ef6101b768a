import { isStorableText } from '@hearth/engine'
import { z } from 'zod'

/**
 * The sync wire protocol: JSON messages over one WebSocket per device (`/sync`), plus HTTP
 * fallbacks for push and snapshot. Every message carries `v`, the protocol version; a peer
 * refuses a version it does not speak with an `error` of code PROTOCOL_VERSION. See docs/sync.md.
 */
export const SYNC_PROTOCOL_VERSION = 1

const V = z.literal(SYNC_PROTOCOL_VERSION).meta({ description: 'Sync protocol version.' })

/** Text the server stores as sent: PostgreSQL refuses the NUL character and unpaired surrogates. */
function storedText(schema: z.ZodString): z.ZodString {
  return schema.refine(
    isStorableText,
    'Must not contain the NUL character (U+0000) or an unpaired surrogate.',
  )
}

/** A device's id: chosen by the device once, kept with its queue. */
export const ClientIdSchema = storedText(z.string().min(8).max(64))
/** A device's name, as its user sees it in their list of devices. */
const DeviceName = storedText(z.string().max(200))
const MutationId = z.number().int().positive()
const Version = z.number().int().nonnegative()

/** One local mutation as a device pushes it: ids are per device and strictly increasing. */
export const SyncMutationSchema = z
  .object({
    id: MutationId,
    name: storedText(z.string().min(1).max(100)),
    args: z.unknown(),
    /** When the device ran it; the server runs it at its own time. */
    clientTime: z.string().optional(),
  })
  .meta({ id: 'SyncMutation' })
export type SyncMutation = z.output<typeof SyncMutationSchema>

/**
 * A full row image, as `to_jsonb(row)` renders it. Checked only for being an object: a snapshot
 * carries tens of thousands, and the database checks the columns when it applies them.
 */
const RowImage = z.custom<Record<string, unknown>>(
  (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  'A row image must be a JSON object.',
)

/** The same, for the OpenAPI document (which cannot describe a custom check). */
const DocumentedRowImage = z
  .looseObject({})
  .meta({ description: 'A full row image: column names to values, as `to_jsonb(row)` renders them.' })

/** One row change: a full row image for `upsert`, null for `delete`. */
export const RowChangeSchema = z
  .object({
    version: Version,
    table: z.string(),
    id: z.string(),
    op: z.enum(['upsert', 'delete']),
    row: RowImage.nullable(),
  })
  .meta({ id: 'SyncRowChange' })

/** Rows of one table in a snapshot page. */
export const TableRowsSchema = z.object({ table: z.string(), rows: z.array(RowImage) })

/** What became of one pushed mutation. */
export const MutationResultSchema = z
  .object({
    id: MutationId,
    status: z.enum(['applied', 'rejected', 'skipped']),
    /** Set when rejected: the stable error code and its message, as REST would answer. */
    code: z.string().optional(),
    message: z.string().optional(),
    httpStatus: z.number().int().optional(),
  })
  .meta({ id: 'SyncMutationResult' })
export type MutationResult = z.output<typeof MutationResultSchema>

// Client to server.

/** First message on a socket: who the device is and where its replica stands. */
export const HelloSchema = z.object({
  v: V,
  type: z.literal('hello'),
  /** The API key, unless the upgrade request carried `Authorization: Bearer`. */
  token: z.string().optional(),
  householdId: z.string().min(1),
  clientId: ClientIdSchema,
  deviceName: DeviceName.optional(),
  /** The version the device's rows are at; null asks for a snapshot. */
  cursor: Version.nullable(),
  /** The lowest mutation id the device still holds as pending, so it hears of rejections it missed. */
  pendingFrom: MutationId.optional(),
})

/** Mutations to run, in id order. */
export const PushSchema = z.object({
  v: V,
  type: z.literal('push'),
  mutations: z.array(SyncMutationSchema).max(1000),
})

/** Asks for what changed since `cursor`, or a snapshot when null. */
export const PullSchema = z.object({ v: V, type: z.literal('pull'), cursor: Version.nullable() })

export const PingSchema = z.object({ v: V, type: z.literal('ping') })

/**
 * Asks for a digest of the rows this device may read (see `digest`), to compare its replica
 * with; the server first sends any delta the device lacks, so the two are at one version.
 */
export const CheckSchema = z.object({ v: V, type: z.literal('check') })

/** Largest presence update, base64; presence is a few fields, never ledger data. */
export const MAX_PRESENCE_UPDATE = 16 * 1024

/**
 * A y-protocols awareness update, base64. From a device: its own state (the server stamps each
 * state with the member and device it came from). From the server: other devices' states.
 */
export const PresenceSchema = z.object({
  v: V,
  type: z.literal('presence'),
  update: z.string().max(MAX_PRESENCE_UPDATE),
})

export const ClientMessageSchema = z.discriminatedUnion('type', [
  HelloSchema,
  PushSchema,
  PullSchema,
  PingSchema,
  PresenceSchema,
  CheckSchema,
])
export type ClientMessage = z.output<typeof ClientMessageSchema>

// Server to client.

/** The answer to hello: the device joined; what it may do, and where the server stands. */
export const WelcomeSchema = z.object({
  v: V,
  type: z.literal('welcome'),
  clientId: ClientIdSchema,
  householdId: z.string(),
  userId: z.string(),
  role: z.enum(['owner', 'member']),
  scopes: z.array(z.string()),
  /** The household's version now, and the last mutation of this device the server processed. */
  version: Version,
  lmid: z.number().int().nonnegative(),
  /** Rejections of mutations at or after hello's pendingFrom, which the device may not have heard. */
  rejections: z.array(MutationResultSchema),
})

/**
 * A page of a snapshot. Every page of one snapshot carries the same version and lmid; the device
 * applies them together when the page with `more: false` arrives.
 */
export const SnapshotSchema = z.object({
  v: V,
  type: z.literal('snapshot'),
  version: Version,
  lmid: z.number().int().nonnegative(),
  tables: z.array(TableRowsSchema),
  more: z.boolean(),
})

/**
 * Row changes after `fromVersion` up to `version`, in commit order, and the device's lmid at that
 * version: mutations at or below it are in these rows, none above. A delta split over several
 * pages has `more: true` on all but the last; the device applies them together. Each page's
 * `fromVersion` is the `version` of the page or delta sent before it on this socket (or the
 * cursor the device gave), so a device applies a delta only when it starts at or before its own
 * version, and asks again (`pull`) otherwise.
 */
export const DeltaSchema = z.object({
  v: V,
  type: z.literal('delta'),
  fromVersion: Version,
  version: Version,
  lmid: z.number().int().nonnegative(),
  changes: z.array(RowChangeSchema),
  more: z.boolean(),
})

/** The outcome of each mutation of one push, in order. */
export const PushResultSchema = z.object({
  v: V,
  type: z.literal('pushResult'),
  lmid: z.number().int().nonnegative(),
  results: z.array(MutationResultSchema),
})

/** The device's replica cannot continue from its cursor; a snapshot follows. */
export const ResetSchema = z.object({
  v: V,
  type: z.literal('reset'),
  reason: z.enum(['CURSOR_AHEAD', 'LOG_WINDOW', 'RIGHTS_CHANGED']),
})

/** A refusal of the whole connection or message; the server closes the socket after fatal ones. */
export const SyncErrorSchema = z.object({
  v: V,
  type: z.literal('error'),
  code: z.string(),
  message: z.string(),
  fatal: z.boolean(),
})

export const PongSchema = z.object({ v: V, type: z.literal('pong') })

/** One table's digest: how many rows the reader may hold, and the sum of their row hashes. */
export const TableDigestSchema = z.object({
  table: z.string(),
  rows: z.number().int().nonnegative(),
  /** The sum of every row's 64-bit hash, modulo 2^64, in hexadecimal. */
  hash: z.string(),
})

/**
 * The answer to `check`: a digest per table of the rows the device may read, at `version`, the
 * version every delta sent before this message leads to. Null when the household moved while it
 * was read: the device compares another time. Tables with no rows may be left out.
 */
export const DigestSchema = z.object({
  v: V,
  type: z.literal('digest'),
  version: Version.nullable(),
  tables: z.array(TableDigestSchema),
})

export const ServerMessageSchema = z.discriminatedUnion('type', [
  WelcomeSchema,
  SnapshotSchema,
  DeltaSchema,
  PushResultSchema,
  ResetSchema,
  SyncErrorSchema,
  PongSchema,
  PresenceSchema,
  DigestSchema,
])
export type ServerMessage = z.output<typeof ServerMessageSchema>

// HTTP fallbacks.

/**
 * POST /sync/push: the push message, addressed by household and device. An unknown field is
 * refused, as on REST.
 */
export const HttpPushRequestSchema = z
  .strictObject({
    v: V,
    householdId: z.string().min(1),
    clientId: ClientIdSchema,
    deviceName: DeviceName.optional(),
    mutations: z.array(SyncMutationSchema).max(1000),
  })
  .meta({ id: 'SyncPushRequest' })

export const HttpPushResponseSchema = z
  .object({ v: V, lmid: z.number().int().nonnegative(), results: z.array(MutationResultSchema) })
  .meta({ id: 'SyncPushResponse' })

/** GET /sync/snapshot: the whole snapshot in one body. */
export const HttpSnapshotResponseSchema = z
  .object({
    v: V,
    householdId: z.string(),
    version: Version,
    lmid: z.number().int().nonnegative(),
    tables: z.array(z.object({ table: z.string(), rows: z.array(DocumentedRowImage) })),
  })
  .meta({ id: 'SyncSnapshot' })
