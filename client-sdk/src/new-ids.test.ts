import { type Mutator, operations } from '@hearth/engine'
import { deviceMutators } from '@hearth/engine/sync'
import { describe, expect, it } from 'vitest'
import { withNewIds } from './new-ids.ts'

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/

describe('withNewIds', () => {
  it('gives every device create call without an id a new ULID', () => {
    const creates = Object.values(deviceMutators).flatMap((verbs) =>
      Object.entries(verbs as unknown as Record<string, Mutator>)
        .filter(([verb]) => verb === 'create')
        .map(([, op]) => op),
    )
    expect(creates.length).toBeGreaterThan(5)
    for (const op of creates)
      expect((withNewIds(op, { name: 'x' }) as { id: string }).id, op.name).toMatch(ULID)
  })

  it('fills each new row of a bulk create, and keeps the ids a caller gave', () => {
    const filled = withNewIds(operations.transactions.bulkCreate, {
      transactions: [{ amountCents: 1 }, { id: '01J0000000000000000000000A', amountCents: 2 }],
    }) as { transactions: { id: string }[] }
    expect(filled.transactions[0]!.id).toMatch(ULID)
    expect(filled.transactions[1]!.id).toBe('01J0000000000000000000000A')
  })

  it('never invents a reference to an existing row', () => {
    const args = { items: [{ position: 1 }] }
    expect(withNewIds(operations.categories.reorder, args)).toBe(args)
    expect(withNewIds(operations.tags.update, { name: 'x' })).toEqual({ name: 'x' })
  })
})
