import {
  ClientIdSchema,
  HttpPushRequestSchema,
  HttpPushResponseSchema,
  HttpSnapshotResponseSchema,
  SYNC_PROTOCOL_VERSION,
} from '@hearth/contracts'
import { notFound, resolveMembership, type Store } from '@hearth/engine'
import { readSnapshot, type TableRows } from '@hearth/engine/sync'
import { OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../http/env.ts'
import { apiRoute, jsonBody, jsonResponse, z } from '../http/route.ts'
import { joinHousehold, ownDevice } from './devices.ts'
import { pushMutations } from './push.ts'
import type { SyncHub } from './sync-hub.ts'

const push = apiRoute({
  method: 'post',
  path: '/sync/push',
  operationId: 'sync.push',
  tags: ['Sync'],
  summary: 'Push a device’s mutations (HTTP fallback)',
  description:
    'The HTTP fallback of the WebSocket push: runs each mutation exactly once, in id order, and answers ' +
    'each one’s outcome. A refused mutation is rejected with its code and still advances the device. ' +
    'Each mutation also needs its own scope. Retrying is always safe without an Idempotency-Key: ' +
    'mutation ids already make each run exactly once. See docs/sync.md.',
  scope: 'read:households',
  request: { body: jsonBody(HttpPushRequestSchema) },
  responses: {
    200: jsonResponse(HttpPushResponseSchema, 'The outcome of each mutation, and the device’s lmid.'),
  },
})

const snapshot = apiRoute({
  method: 'get',
  path: '/sync/snapshot',
  operationId: 'sync.snapshot',
  tags: ['Sync'],
  summary: 'Read a household snapshot (HTTP fallback)',
  description:
    'Every replicated row of the household the key may read, at one consistent version, with the ' +
    'device’s lmid when `clientId` names a device the caller joined to this household before ' +
    '(else lmid 0; the read binds nothing). See docs/sync.md.',
  scope: 'read:households',
  request: {
    query: z.strictObject({
      householdId: z.string().meta({ description: 'A household id, or `current`.' }),
      clientId: ClientIdSchema.optional().meta({ description: 'The device asking, for its lmid.' }),
    }),
  },
  responses: { 200: jsonResponse(HttpSnapshotResponseSchema, 'The snapshot.') },
})

/** The HTTP fallbacks of sync: push and snapshot, for clients that cannot hold a socket. */
export function syncRoutes(store: Store, hub: SyncHub, maxDevices?: number) {
  return new OpenAPIHono<AppEnv>()
    .openapi(push, async (c) => {
      const body = c.req.valid('json')
      const device = await joinHousehold(
        store,
        c.var.caller,
        body.householdId,
        body.clientId,
        body.deviceName,
        maxDevices,
      )
      const { lmid, results, committed } = await pushMutations(store, device, body.mutations, c.var.logger)
      if (committed) hub.offer(device.householdId, committed)
      else hub.notify(device.householdId)
      return c.json({ v: SYNC_PROTOCOL_VERSION, lmid, results }, 200)
    })
    .openapi(snapshot, async (c) => {
      const query = c.req.valid('query')
      const member = await resolveHousehold(store, c.var.caller, query.householdId)
      const householdId = member.householdId
      // A GET binds nothing: a client id the caller has not bound here reads as no device at all,
      // so the answer tells nothing of whether the id exists elsewhere.
      const clientId = query.clientId
        ? ((await ownDevice(store, c.var.caller, householdId, query.clientId)) ?? undefined)
        : undefined
      const tables = new Map<string, TableRows['rows']>()
      const position = await readSnapshot(
        store.db,
        householdId,
        {
          clientId,
          scopes: c.var.caller.scopes,
          userId: c.var.caller.userId,
          role: member.role,
        },
        (page) => {
          tables.set(page.table, [...(tables.get(page.table) ?? []), ...page.rows])
        },
      )
      return c.json(
        {
          v: SYNC_PROTOCOL_VERSION,
          householdId,
          version: position.version,
          lmid: position.lmid,
          tables: [...tables].map(([table, rows]) => ({ table, rows })),
        },
        200,
      )
    })
}

/** Resolves `current` or an id to the caller's membership of that household; else 404. */
async function resolveHousehold(store: Store, caller: AppEnv['Variables']['caller'], ref: string) {
  const membership = await resolveMembership(store.db, caller.userId, ref)
  if (!membership) throw notFound('Household', ref)
  return membership
}
