import type { Transaction } from 'kysely'
import type { Database } from '../database.ts'
import type { EventData, EventType } from '../events/catalog.ts'
import type { DomainEvent } from '../mutator/context.ts'
import { queueEvents } from '../mutator/run.ts'
import { syncDb } from './tables.ts'

/** The device whose mutation the server refused. */
export interface RefusingDevice {
  clientId: string
  householdId: string
  userId: string
}

/** The refused mutation, as the device pushed it. */
export interface RefusedMutation {
  id: number
  name: string
  args: unknown
}

/** Why it was refused: the rejection the device is told. */
export interface Refusal {
  status: number
  code: string
  message: string
}

/** An id a device's arguments name, if it looks like one (a device may send anything). */
function targetOf(args: unknown): string | null {
  const id = typeof args === 'object' && args !== null ? (args as Record<string, unknown>).id : undefined
  return typeof id === 'string' && /^[A-Za-z0-9_-]{1,100}$/.test(id) ? id : null
}

/**
 * Records a device's refused mutation in the push's transaction: the rejection the device is told
 * again after a reconnect, and a `change.refused` event, from which its member hears of it
 * (`change_refused`). Both go with the transaction: a push that rolls back records neither, and
 * its retry records them once.
 */
export async function recordRejection(
  tx: Transaction<Database>,
  device: RefusingDevice,
  mutation: RefusedMutation,
  refusal: Refusal,
  now: Date,
): Promise<void> {
  await syncDb(tx)
    .insertInto('sync_rejections')
    .values({
      client_id: device.clientId,
      mutation_id: mutation.id,
      name: mutation.name,
      status: refusal.status,
      code: refusal.code,
      message: refusal.message,
    })
    .execute()
  const events: DomainEvent[] = []
  const ctx = {
    emit<T extends EventType>(type: T, data: EventData<T>) {
      events.push({ type, data: data as Record<string, unknown> })
    },
  }
  ctx.emit('change.refused', {
    clientId: device.clientId,
    mutationId: mutation.id,
    operation: mutation.name,
    targetId: targetOf(mutation.args),
    status: refusal.status,
    code: refusal.code,
    message: refusal.message,
  })
  // A refusal changed no row, so it has no household version of its own.
  await queueEvents(
    tx,
    { householdId: device.householdId, version: null, actorUserId: device.userId, now },
    events,
  )
}
