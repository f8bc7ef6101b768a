import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { DurabilityError, WalSync } from './wal-sync.ts'

const folders: string[] = []
const syncs: WalSync[] = []

afterEach(async () => {
  for (const wal of syncs.splice(0)) await wal.close()
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A WalSync and a segment file it can sync, on this machine's disk. */
function setup(): { wal: WalSync; segment: string } {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-wal-'))
  folders.push(dir)
  const segment = join(dir, '000000010000000000000001')
  writeFileSync(segment, Buffer.alloc(8192))
  const wal = new WalSync()
  syncs.push(wal)
  return { wal, segment }
}

describe('WalSync', () => {
  it('answers at once, with no sync, when nothing was written', async () => {
    const { wal } = setup()
    await wal.settle(true)
    await wal.settle(false)
    expect(wal.counts).toEqual({ inPlace: 0, pooled: 0 })
  })

  it('syncs a lone commit in place: one sync, no thread hand-off', async () => {
    const { wal, segment } = setup()
    wal.defer(segment)
    expect(wal.pending).toBe(true)
    await wal.settle(true)
    expect(wal.pending).toBe(false)
    expect(wal.counts).toEqual({ inPlace: 1, pooled: 0 })
    // Settled already: a read after it waits for nothing.
    await wal.settle(true)
    expect(wal.counts).toEqual({ inPlace: 1, pooled: 0 })
  })

  it('hands the sync to the thread pool when others wait, and commits that wait together share syncs', async () => {
    const { wal, segment } = setup()
    const settled = Array.from({ length: 16 }, () => {
      wal.defer(segment)
      return wal.settle(false)
    })
    await Promise.all(settled)
    expect(wal.pending).toBe(false)
    expect(wal.counts.inPlace).toBe(0)
    // The first two start a round each (two may run at once); the fourteen behind them share a third.
    expect(wal.counts.pooled).toBe(3)
  })

  it('runs a lone commit on the thread pool while a sync is running, and covers both', async () => {
    const { wal, segment } = setup()
    wal.defer(segment)
    const first = wal.settle(false)
    wal.defer(segment)
    await Promise.all([first, wal.settle(true)])
    expect(wal.pending).toBe(false)
    expect(wal.counts.inPlace).toBe(0)
  })

  it('still syncs a lone commit in place after rounds that waited for a busy event loop', async () => {
    const { wal, segment } = setup()
    // Rounds on the thread pool whose callbacks wait 40 ms for an event loop busy elsewhere: each
    // takes 40 ms from start to callback though the disk's part is short. Counted as the disk's
    // time, four of them would put the average past the 10 ms limit, and every lone commit after
    // them on the thread pool (where its own wait is timed again, with the same waits).
    for (let i = 0; i < 4; i++) {
      wal.defer(segment)
      const settled = wal.settle(false)
      const until = performance.now() + 40
      while (performance.now() < until) {}
      await settled
    }
    expect(wal.counts).toEqual({ inPlace: 0, pooled: 4 })
    wal.defer(segment)
    await wal.settle(true)
    expect(wal.counts).toEqual({ inPlace: 1, pooled: 4 })
  })

  it('fails every later commit once a sync failed, in place or not', async () => {
    const { wal } = setup()
    wal.defer(join(tmpdir(), 'hearth-wal-missing', '000000010000000000000009'))
    await expect(wal.settle(true)).rejects.toBeInstanceOf(DurabilityError)
    await expect(wal.settle(false)).rejects.toBeInstanceOf(DurabilityError)
    expect(() => wal.syncNow()).toThrow(DurabilityError)
  })
})
