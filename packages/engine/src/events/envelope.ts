import { z } from 'zod'
import { EVENT_SCHEMAS, EVENT_TYPES, type EventData, type EventType } from './catalog.ts'

/** One event as the outbox stores it and as webhooks will deliver it. */
export interface EventEnvelope<T extends EventType = EventType> {
  /** `evt_` and a ULID; unique, and ordered by emission within a process. */
  id: string
  type: T
  /** The household the change happened in; null for a change outside any household. */
  householdId: string | null
  /** The mutation's `ctx.now`, as an ISO 8601 instant in UTC. */
  occurredAt: string
  /** The household version the change committed at; null outside any household. */
  version: number | null
  /** The member whose action it was (`system` for the server's own); kept on the server, never sent to webhooks. */
  actorUserId?: string
  data: EventData<T>
}

/** The envelope's own fields; `data` is checked against its type's schema by `parseEvent`. */
export const EventEnvelopeSchema = z.object({
  id: z.string().regex(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/),
  type: z.enum(EVENT_TYPES as [EventType, ...EventType[]]),
  householdId: z.string().nullable(),
  occurredAt: z.iso.datetime(),
  version: z.number().int().positive().nullable(),
  data: z.record(z.string(), z.unknown()),
})

/** Checks a stored or received event, envelope and payload; throws a ZodError naming the bad field. */
export function parseEvent(value: unknown): EventEnvelope {
  const envelope = EventEnvelopeSchema.parse(value)
  const data = EVENT_SCHEMAS[envelope.type].parse(envelope.data)
  return { ...envelope, data } as EventEnvelope
}
