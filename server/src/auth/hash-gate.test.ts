import { describe, expect, it } from 'vitest'
import { HashGate } from './hash-gate.ts'

describe('HashGate', () => {
  it('lets one source compute inFlight checks, queues waiting more in order, refuses the next, and forgets it when done', async () => {
    const gate = new HashGate({ inFlight: 1, waiting: 2 })
    const first = await gate.enter('a')!
    const order: string[] = []
    const inOrder = (name: string) => (end: () => void) => {
      order.push(name)
      return end
    }
    const second = gate.enter('a')!.then(inOrder('second'))
    const third = gate.enter('a')!.then(inOrder('third'))
    expect(gate.enter('a')).toBeNull()
    // Another source is not held back by this one.
    const other = await gate.enter('b')!
    other()
    expect(gate.counts).toEqual({ waited: 2, refused: 1 })
    first()
    first() // ending a turn twice frees one turn only
    const endSecond = await second
    expect(order).toEqual(['second'])
    endSecond()
    ;(await third)()
    expect(order).toEqual(['second', 'third'])
    expect(gate.size).toBe(0)
  })
})
