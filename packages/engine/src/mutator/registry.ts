import type { Operation } from './define.ts'

/** A domain's operations, grouped by the noun they act on: `{ tags: { create, update } }`. */
export type OperationTree = Record<string, Record<string, Operation>>

/** The joined tree, plus every operation by its name. */
export type Registry<T> = T & { readonly byName: ReadonlyMap<string, Operation> }

type Joined<D extends readonly OperationTree[]> = D extends readonly [
  infer H,
  ...infer R extends readonly OperationTree[],
]
  ? H & Joined<R>
  : unknown

/**
 * Joins domain trees into one registry. Each operation is named after its path (`tags.create`);
 * a noun claimed by two domains, or one operation object registered under two paths, fails at
 * start-up rather than letting one silently shadow or rename the other.
 */
export function createRegistry<const D extends readonly OperationTree[]>(...domains: D): Registry<Joined<D>> {
  const tree: OperationTree = {}
  const byName = new Map<string, Operation>()
  for (const domain of domains) {
    for (const [noun, verbs] of Object.entries(domain)) {
      if (noun in tree) throw new Error(`Two domains register operations under "${noun}"`)
      tree[noun] = verbs
      for (const [verb, op] of Object.entries(verbs)) {
        const name = `${noun}.${verb}`
        if (op.name && op.name !== name) throw new Error(`${name} is already registered as ${op.name}`)
        ;(op as { name: string }).name = name
        byName.set(name, op)
      }
    }
  }
  return Object.assign(tree, { byName }) as unknown as Registry<Joined<D>>
}
