import { addMonths, thisMonth } from '../format.ts'

/** A run of months the reports cover, and the days the spending report takes from it. */
export interface MonthRange {
  fromMonth: string
  toMonth: string
}

/** The range presets a person picks from, newest month last. */
export const PRESETS = [
  { id: '6m', label: 'Last 6 months' },
  { id: '12m', label: 'Last 12 months' },
  { id: 'ytd', label: 'This year' },
  { id: 'last-year', label: 'Last year' },
  { id: '24m', label: 'Last 24 months' },
  { id: 'custom', label: 'Custom' },
] as const
export type PresetId = (typeof PRESETS)[number]['id']

/** The months of a preset, ending with `now` (YYYY-MM). */
export function presetRange(id: Exclude<PresetId, 'custom'>, now = thisMonth()): MonthRange {
  const year = now.slice(0, 4)
  switch (id) {
    case '6m':
      return { fromMonth: addMonths(now, -5), toMonth: now }
    case '12m':
      return { fromMonth: addMonths(now, -11), toMonth: now }
    case '24m':
      return { fromMonth: addMonths(now, -23), toMonth: now }
    case 'ytd':
      return { fromMonth: `${year}-01`, toMonth: now }
    case 'last-year':
      return { fromMonth: `${Number(year) - 1}-01`, toMonth: `${Number(year) - 1}-12` }
  }
}

/** The last day of a month, YYYY-MM-DD. */
export function lastDay(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number]
  return `${month}-${String(new Date(Date.UTC(y, m, 0)).getUTCDate()).padStart(2, '0')}`
}

/** "Jan 2026" as an axis label. */
export function shortMonth(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number]
  return new Date(Date.UTC(y, m - 1, 1)).toLocaleString('en', {
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  })
}

/** Cents as a number of major units, for drawing only; every figure shown as text stays exact. */
export function toUnits(cents: string): number {
  return Number(cents) / 100
}
