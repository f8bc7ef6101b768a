import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { FileQueue } from './file-queue.ts'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function queuePath() {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-queue-'))
  dirs.push(dir)
  return join(dir, 'queue.jsonl')
}

describe('file queue', () => {
  it('reads back every appended record in order, across reopening', async () => {
    const path = queuePath()
    const queue = await FileQueue.open(path)
    await queue.append({ type: 'client', clientId: 'c1', householdId: 'h1' })
    await queue.append({
      type: 'mutation',
      id: 1,
      name: 'tags.create',
      args: { id: 'x' },
      at: '2024-01-01T00:00:00.000Z',
    })
    await queue.append({ type: 'drop', id: 1 })
    await queue.close()
    const again = await FileQueue.open(path)
    expect((await again.read()).map((r) => r.type)).toEqual(['client', 'mutation', 'drop'])
    await again.close()
  })

  it('skips a torn last line left by a crash mid-append', async () => {
    const path = queuePath()
    const queue = await FileQueue.open(path)
    await queue.append({ type: 'client', clientId: 'c1', householdId: 'h1' })
    appendFileSync(path, '{"type":"mutation","id":2,"na')
    expect(await queue.read()).toEqual([{ type: 'client', clientId: 'c1', householdId: 'h1' }])
    await queue.close()
  })

  it('rewrites atomically to only the records it is given, and keeps appending after', async () => {
    const path = queuePath()
    const queue = await FileQueue.open(path)
    for (let id = 1; id <= 5; id++) {
      await queue.append({
        type: 'mutation',
        id,
        name: 'tags.create',
        args: {},
        at: '2024-01-01T00:00:00.000Z',
      })
    }
    await queue.rewrite([{ type: 'client', clientId: 'c1', householdId: 'h1', floor: 5 }])
    await queue.append({ type: 'drop', id: 6 })
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(2)
    expect(await queue.read()).toEqual([
      { type: 'client', clientId: 'c1', householdId: 'h1', floor: 5 },
      { type: 'drop', id: 6 },
    ])
    await queue.close()
  })
})
