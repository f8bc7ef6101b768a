import 'fake-indexeddb/auto'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { IdbQueue } from './idb-queue.ts'

describe('IndexedDB queue', () => {
  it('reads back appended records in order across reopening, and rewrites atomically', async () => {
    const name = `queue-${ulid()}`
    const queue = await IdbQueue.open(name)
    await queue.append({ type: 'client', clientId: 'c1', householdId: 'h1' })
    for (let id = 1; id <= 3; id++) {
      await queue.append({
        type: 'mutation',
        id,
        name: 'tags.create',
        args: { id },
        at: '2024-01-01T00:00:00.000Z',
      })
    }
    await queue.append({ type: 'drop', id: 3 })
    await queue.close()
    const again = await IdbQueue.open(name)
    expect(
      (await again.read()).map((r) =>
        r.type === 'mutation' || r.type === 'drop' ? `${r.type}:${r.id}` : r.type,
      ),
    ).toEqual(['client', 'mutation:1', 'mutation:2', 'mutation:3', 'drop:3'])
    await again.rewrite([{ type: 'client', clientId: 'c1', householdId: 'h1', floor: 3 }])
    await again.append({ type: 'drop', id: 4 })
    expect(await again.read()).toEqual([
      { type: 'client', clientId: 'c1', householdId: 'h1', floor: 3 },
      { type: 'drop', id: 4 },
    ])
    await again.close()
  })

  it('commits every write with strict durability', async () => {
    const seen: (string | undefined)[] = []
    const original = IDBDatabase.prototype.transaction
    IDBDatabase.prototype.transaction = function (this: IDBDatabase, ...args: Parameters<typeof original>) {
      if (args[1] === 'readwrite') seen.push(args[2]?.durability)
      return original.apply(this, args)
    } as typeof original
    try {
      const queue = await IdbQueue.open(`queue-${ulid()}`)
      await queue.append({ type: 'drop', id: 1 })
      await queue.rewrite([{ type: 'drop', id: 2 }])
      await queue.close()
    } finally {
      IDBDatabase.prototype.transaction = original
    }
    expect(seen).toEqual(['strict', 'strict'])
  })
})
