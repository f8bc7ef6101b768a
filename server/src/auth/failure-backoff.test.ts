import { describe, expect, it } from 'vitest'
import { FailureBackoff } from './failure-backoff.ts'

const MINUTE = 60_000

function backoff(limit = 3) {
  let now = 1_000_000
  const counter = new FailureBackoff({ limit, windowMs: MINUTE, maxBlockMs: 8 * MINUTE }, () => now)
  return { counter, advance: (ms: number) => (now += ms) }
}

describe('FailureBackoff', () => {
  it('blocks a source for a window once it passes its limit, and not before', () => {
    const { counter, advance } = backoff()
    expect([counter.failed('a'), counter.failed('a'), counter.failed('a')]).toEqual([0, 0, 0])
    expect(counter.blockedFor('a')).toBe(0)
    expect(counter.failed('a')).toBe(MINUTE)
    expect(counter.blockedFor('b')).toBe(0)
    advance(20_000)
    expect(counter.blockedFor('a')).toBe(40_000)
    expect(counter.failed('a')).toBe(40_000)
  })

  it('doubles the block at each strike, up to the longest block', () => {
    const { counter, advance } = backoff(1)
    const blocks: number[] = []
    for (let strike = 0; strike < 6; strike++) {
      counter.failed('a')
      const block = counter.failed('a')
      blocks.push(block / MINUTE)
      advance(block)
    }
    expect(blocks).toEqual([1, 2, 4, 8, 8, 8])
  })

  it('starts again from one window after a quiet spell as long as the longest block', () => {
    const { counter, advance } = backoff(1)
    counter.failed('a')
    advance(counter.failed('a'))
    counter.failed('a')
    advance(counter.failed('a'))
    advance(8 * MINUTE)
    counter.failed('a')
    expect(counter.failed('a')).toBe(MINUTE)
  })

  it('counts failures in a window: failures spread over windows never block', () => {
    const { counter, advance } = backoff()
    for (let i = 0; i < 20; i++) {
      expect(counter.failed('a')).toBe(0)
      advance(MINUTE / 3 + 1)
    }
  })

  it('forgets sources that stopped failing, so memory follows the recent failures', () => {
    const { counter, advance } = backoff()
    for (let i = 0; i < 100; i++) counter.failed(`source-${i}`)
    expect(counter.size).toBe(100)
    advance(MINUTE)
    counter.failed('late')
    expect(counter.size).toBe(1)
  })
})
