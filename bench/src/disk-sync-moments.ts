/**
 * `npx tsx bench/src/disk-sync-moments.ts`: how this machine's `fdatasync` time depends on the
 * moment it runs, which is why `bench:durability` times its floor inside the server (README,
 * Durability). Syncs back to back, then 3 ms apart (spinning, then sleeping), each shape
 * interleaved with the others so that all see the same moments: a 3.8 kB WAL-like rewrite of a
 * zero-filled file, the same after another file was extended by 8 kB or rewritten, and a 200-byte
 * append.
 */
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const SAMPLES = 1200
const dir = mkdtempSync(join(tmpdir(), 'hearth-disk-moments-'))
const wal = openSync(join(dir, 'wal'), 'w+')
writeSync(wal, Buffer.alloc(16 << 20))
fdatasyncSync(wal)
const rel = openSync(join(dir, 'rel'), 'w+')
const log = openSync(join(dir, 'append'), 'a')
const record = Buffer.alloc(3800, 3)
const page = Buffer.alloc(8192, 1)
const line = Buffer.alloc(200, 1)
let walAt = 0
let relAt = 0

const spin = (ms: number) => {
  const until = performance.now() + ms
  while (performance.now() < until);
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const shapes = {
  'WAL rewrite': () => {},
  'WAL rewrite, another file extended': () => {
    writeSync(rel, page, 0, page.length, relAt)
    relAt += page.length
  },
  'WAL rewrite, another file rewritten': () => writeSync(rel, page, 0, page.length, 0),
  '200 B append': null,
} as const

function q(values: number[], f: number): string {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(f * sorted.length)]!.toFixed(3)
}

for (const [label, gap] of [
  ['back to back', async () => {}],
  ['3 ms apart, spinning', async () => spin(3)],
  ['3 ms apart, sleeping', () => sleep(3)],
] as const) {
  const times = new Map<string, number[]>(Object.keys(shapes).map((k) => [k, []]))
  const names = Object.keys(shapes) as (keyof typeof shapes)[]
  for (let i = 0; i < SAMPLES; i++) {
    const name = names[i % names.length]!
    shapes[name]?.()
    await gap()
    const start = performance.now()
    if (name === '200 B append') {
      writeSync(log, line)
      fdatasyncSync(log)
    } else {
      writeSync(wal, record, 0, record.length, walAt)
      walAt = (walAt + record.length) % (16 << 20)
      fdatasyncSync(wal)
    }
    times.get(name)!.push(performance.now() - start)
  }
  console.log(label)
  for (const [name, t] of times) {
    console.log(`  ${name.padEnd(36)} p10 ${q(t, 0.1)} ms, p50 ${q(t, 0.5)} ms, p90 ${q(t, 0.9)} ms`)
  }
}
for (const fd of [wal, rel, log]) closeSync(fd)
rmSync(dir, { recursive: true, force: true })
