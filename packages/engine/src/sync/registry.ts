import type { ZodType } from 'zod'
import { EngineError } from '../errors.ts'
import type { HouseholdContext } from '../mutator/context.ts'
import type { Mutator, Operation } from '../mutator/define.ts'
import { type Operations, operations } from '../registry.ts'

type Nouns = Exclude<keyof Operations, 'byName'>

/** A household mutator a device may run locally and push. */
type DeviceMutator = Mutator<ZodType, unknown, HouseholdContext> & { audience: 'device' }

type Pick2<N extends Nouns, Want> = {
  [V in keyof Operations[N] as Operations[N][V] extends Want ? V : never]: Operations[N][V]
}
type NonEmpty<T> = { [K in keyof T as keyof T[K] extends never ? never : K]: T[K] }

/** The device mutators by noun and verb (`tags.create`), what `hearth.mutate` exposes. */
export type DeviceMutators = NonEmpty<{
  [N in Nouns]: Pick2<N, { kind: 'mutator'; level: 'household'; audience: 'device' }>
}>

/** The device queries by noun and verb (`tags.list`), what `hearth.query` exposes. */
export type DeviceQueries = NonEmpty<{
  [N in Nouns]: Pick2<N, { kind: 'query'; level: 'household'; audience: 'device' }>
}>

function isDevice(op: Operation, kind: Operation['kind']): boolean {
  return op.kind === kind && op.level === 'household' && op.audience === 'device'
}

function deviceTree(kind: Operation['kind']): Record<string, Record<string, Operation>> {
  const tree: Record<string, Record<string, Operation>> = {}
  for (const op of operations.byName.values()) {
    if (!isDevice(op, kind)) continue
    const [noun, verb] = op.name.split('.') as [string, string]
    tree[noun] ??= {}
    tree[noun][verb] = op
  }
  return tree
}

/** Every device mutator, by noun and verb. */
export const deviceMutators = deviceTree('mutator') as unknown as DeviceMutators

/** Every device query, by noun and verb. */
export const deviceQueries = deviceTree('query') as unknown as DeviceQueries

/**
 * The mutator a device may run under `name`, for the replica and for the server's push alike. An
 * unknown name is 400 `UNKNOWN_MUTATOR`; an operation only the server or its jobs may run is 403
 * `NOT_A_DEVICE_OPERATION`, so a pushed `members.add` or `transactions.suggestCategory` is never
 * applied.
 */
export function deviceMutator(name: string): DeviceMutator {
  const op = operations.byName.get(name)
  if (op?.kind !== 'mutator') {
    throw new EngineError(400, 'UNKNOWN_MUTATOR', `No mutator is named ${name}.`)
  }
  if (!isDevice(op, 'mutator')) {
    throw new EngineError(
      403,
      'NOT_A_DEVICE_OPERATION',
      `${name} runs only on the server (audience "${op.audience}"); call it over REST, not from a device.`,
    )
  }
  return op as DeviceMutator
}
