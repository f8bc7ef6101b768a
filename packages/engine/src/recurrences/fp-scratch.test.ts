import { it } from 'vitest'
import { addDays } from '../ledger/model.ts'
import { detectSeries, type HistoryRow } from './detect.ts'

function random(seed: number) {
  let s = seed
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}
it('counts false positives', () => {
  const today = '2026-11-25'
  const means = [1800, 2500, 4000, 3000, 300, 4500, 2000]
  for (const perWeek of [0.5, 1, 2, 4]) {
    const rnd = random(11 + perWeek * 7)
    let found = 0
    const cad: Record<string, number> = {}
    const t0 = performance.now()
    let spent = 0
    const groups = 1000
    for (let g = 0; g < groups; g++) {
      const rows: HistoryRow[] = []
      for (let d = 0; d < 762; d++) {
        const date = addDays(today, -d)
        let n = 0
        const p = perWeek / 7
        if (rnd() < p) n++
        for (let i = 0; i < n; i++) {
          const mean = means[Math.floor(rnd() * means.length)]!
          rows.push({ id: `g${g}r${d}i${i}`, accountId: 'a', date, amountCents: -Math.max(50, Math.round((mean * (0.4 + rnd() * 1.2)) / 3)), categoryId: 'c' })
        }
      }
      const t1 = performance.now()
      const s = detectSeries(rows, today)
      spent += performance.now() - t1
      if (s) { found++; cad[`${s.cadence}:${s.rows.length}`] = (cad[`${s.cadence}:${s.rows.length}`] ?? 0) + 1 }
    }
    console.log(`perWeek ${perWeek}: ${found}/${groups} false positives`, cad, `${Math.round(performance.now() - t0)} ms, detect ${Math.round(spent)} ms`)
  }
})
