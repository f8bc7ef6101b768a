import type { Mutator, Query } from './define.ts'

type Operation = Mutator<any, any, any> | Query<any, any, any>

/**
 * Combines domain maps into one registry keyed by operation name, refusing a duplicate
 * name at start-up rather than letting one silently shadow another.
 */
export function createRegistry<T extends Operation>(...domains: Record<string, T>[]): Map<string, T> {
  const registry = new Map<string, T>()
  for (const domain of domains) {
    for (const op of Object.values(domain)) {
      if (registry.has(op.name)) throw new Error(`Duplicate operation name: ${op.name}`)
      registry.set(op.name, op)
    }
  }
  return registry
}
