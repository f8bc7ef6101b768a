/** Timing figures of one measured operation. */
export interface Timing {
  runs: number
  medianMs: number
  p95Ms: number
  p99Ms: number
}

/**
 * Runs `fn` `warmup` times unmeasured, then `runs` times, and returns median, p95 and p99 in ms.
 * `before` runs ahead of every run, unmeasured.
 */
export async function time(
  fn: () => Promise<unknown>,
  options: { runs?: number; warmup?: number; before?: () => Promise<unknown> } = {},
): Promise<Timing> {
  const runs = options.runs ?? 30
  for (let i = 0; i < (options.warmup ?? 3); i++) {
    await options.before?.()
    await fn()
  }
  const samples: number[] = []
  for (let i = 0; i < runs; i++) {
    await options.before?.()
    const start = performance.now()
    await fn()
    samples.push(performance.now() - start)
  }
  samples.sort((a, b) => a - b)
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!
  return { runs, medianMs: at(0.5), p95Ms: at(0.95), p99Ms: at(0.99) }
}

/** `time`'s figures of samples taken elsewhere (in a page, or interleaved with other measures). */
export function summarize(samples: number[]): Timing {
  const sorted = [...samples].sort((x, y) => x - y)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
  return { runs: sorted.length, medianMs: at(0.5), p95Ms: at(0.95), p99Ms: at(0.99) }
}

/** One line of a report: the engine's figure beside its raw-SQL baseline from the same run. */
export interface Comparison {
  store: string
  measure: string
  engine: Timing
  baseline: Timing
  targetMs?: number
}

/** Prints comparisons as an aligned table with the engine/baseline ratio and the target verdict. */
export function printReport(rows: Comparison[]): void {
  const header = ['store', 'measure', 'median ms', 'p95 ms', 'raw SQL median ms', 'ratio', 'target']
  const lines = rows.map((r) => [
    r.store,
    r.measure,
    r.engine.medianMs.toFixed(2),
    r.engine.p95Ms.toFixed(2),
    r.baseline.medianMs.toFixed(2),
    `${(r.engine.medianMs / r.baseline.medianMs).toFixed(2)}x`,
    r.targetMs === undefined
      ? ''
      : `${r.engine.medianMs < r.targetMs ? 'met' : 'MISSED'} (< ${r.targetMs} ms)`,
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)))
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`
  console.log(fmt(header))
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`)
  for (const line of lines) console.log(fmt(line))
}

/** A small deterministic PRNG (mulberry32), so every seed run builds the same household. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Latency figures of a run of REST reads. */
export interface ReadFigures {
  reads: number
  p50: number
  p99: number
  max: number
}

/** The p50, p99 and max of a run of read latencies (ms). */
export function summarizeReads(samples: number[]): ReadFigures {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
  return { reads: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1)! }
}

/** One read of the key's household's tags over REST; its latency in ms. Throws unless 200. */
export async function readTags(url: string, token: string): Promise<number> {
  const start = performance.now()
  const res = await fetch(`${url}/households/current/tags`, { headers: { authorization: `Bearer ${token}` } })
  await res.arrayBuffer()
  if (res.status !== 200) throw new Error(`the read answered ${res.status}`)
  return performance.now() - start
}
