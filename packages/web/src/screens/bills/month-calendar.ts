/** A month as weeks of seven days, Monday first; days outside the month are null. */
export function monthWeeks(month: string): (string | null)[][] {
  const [y, m] = month.split('-').map(Number) as [number, number]
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate()
  // getUTCDay: 0 is Sunday; Monday first puts Sunday last.
  const lead = (new Date(Date.UTC(y, m - 1, 1)).getUTCDay() + 6) % 7
  const cells: (string | null)[] = Array.from({ length: lead }, () => null)
  for (let d = 1; d <= days; d++) cells.push(`${month}-${String(d).padStart(2, '0')}`)
  while (cells.length % 7 !== 0) cells.push(null)
  const weeks: (string | null)[][] = []
  for (let i = 0; i < cells.length; i += 7) weeks.push(cells.slice(i, i + 7))
  return weeks
}

/** Items grouped by their date, in the order given. */
export function byDate<T extends { date: string }>(items: readonly T[]): Map<string, T[]> {
  const days = new Map<string, T[]>()
  for (const item of items) {
    const list = days.get(item.date) ?? []
    list.push(item)
    days.set(item.date, list)
  }
  return days
}
