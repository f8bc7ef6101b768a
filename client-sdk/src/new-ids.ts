import { type Mutator, newUlid, UlidSchema } from '@hearth/engine'
import type { z } from 'zod'

/** Verbs whose `id` names a row the call creates, rather than one that exists. */
const CREATING = new Set(['create', 'bulkCreate'])

/**
 * Fills what a create call leaves out: a missing `id` (of the new row, and of each new row in a
 * list such as `transactions.bulkCreate`'s) gets a fresh ULID, where the arguments schema asks
 * for one. It runs before the mutation is queued, so the device and the server create the row
 * under the same id. References to existing rows are never filled.
 */
export function withNewIds(mutator: Pick<Mutator, 'name' | 'args'>, args: unknown): unknown {
  const verb = mutator.name.slice(mutator.name.lastIndexOf('.') + 1)
  return CREATING.has(verb) ? fill(mutator.args, args) : args
}

function fill(schema: z.ZodType, value: unknown): unknown {
  const def = (schema as { def: ZodDef }).def
  switch (def.type) {
    case 'object': {
      if (!isRecord(value)) return value
      const out: Record<string, unknown> = { ...value }
      for (const [key, field] of Object.entries(def.shape ?? {})) {
        if (key === 'id' && field === UlidSchema) {
          if (out.id === undefined) out.id = newUlid()
        } else if (Array.isArray(out[key])) {
          out[key] = fill(field, out[key])
        }
      }
      return out
    }
    case 'array':
      return Array.isArray(value) ? value.map((item) => fill(def.element!, item)) : value
    case 'optional':
    case 'nullable':
    case 'default':
      return fill(def.innerType!, value)
    case 'pipe':
      return fill(def.in!, value)
    default:
      return value
  }
}

/** The parts of a zod 4 schema definition the walk reads. */
interface ZodDef {
  type: string
  shape?: Record<string, z.ZodType>
  element?: z.ZodType
  innerType?: z.ZodType
  in?: z.ZodType
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
