import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks'

/** What held up a process's thread over a window: garbage collections, and its event loop's delay. */
export interface Pauses {
  collections: number
  /** Of them, full (mark-compact) collections, and their summed pause (ms). */
  major: number
  majorMs: number
  /** Summed and longest collection pause (ms). */
  gcMs: number
  gcMaxMs: number
  /** How late the event loop's timers ran: p99 and worst (ms). */
  loopDelayP99Ms: number
  loopDelayMaxMs: number
}

/**
 * Starts watching this process's collections and event-loop delay; each call of the answer gives
 * the figures since the previous call (or since the start), so a bench brackets a window with two
 * calls and reads the second.
 */
export function watchPauses(): () => Pauses {
  let collections = 0
  let major = 0
  let majorMs = 0
  let gcMs = 0
  let gcMaxMs = 0
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      collections++
      gcMs += entry.duration
      gcMaxMs = Math.max(gcMaxMs, entry.duration)
      const { detail } = entry as PerformanceEntry & { detail?: { kind?: number } }
      if (detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        major++
        majorMs += entry.duration
      }
    }
  })
  observer.observe({ entryTypes: ['gc'] })
  const loop = monitorEventLoopDelay({ resolution: 5 })
  loop.enable()
  return () => {
    const pauses: Pauses = {
      collections,
      major,
      majorMs,
      gcMs,
      gcMaxMs,
      loopDelayP99Ms: loop.percentile(99) / 1e6,
      loopDelayMaxMs: loop.max / 1e6,
    }
    collections = 0
    major = 0
    majorMs = 0
    gcMs = 0
    gcMaxMs = 0
    loop.reset()
    return pauses
  }
}

/** One line for a report: `12 GCs, 31 ms (2 full, 9 ms; longest 4.1 ms); loop delay p99 6.3 ms, max 9.0 ms`. */
export function describePauses(p: Pauses): string {
  return (
    `${p.collections} GCs, ${p.gcMs.toFixed(0)} ms (${p.major} full, ${p.majorMs.toFixed(0)} ms; longest ${p.gcMaxMs.toFixed(1)} ms); ` +
    `loop delay p99 ${p.loopDelayP99Ms.toFixed(1)} ms, max ${p.loopDelayMaxMs.toFixed(1)} ms`
  )
}
