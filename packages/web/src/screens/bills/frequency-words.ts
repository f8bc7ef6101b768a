/** A schedule as the screens say it. */
export interface ScheduleWords {
  frequency: string
  interval?: number
  dayOfMonth: number | null
  weekday: string | null
  weekOfMonth: number | null
}

const NTH: Record<number, string> = {
  1: 'first',
  2: 'second',
  3: 'third',
  4: 'fourth',
  5: 'fifth',
  [-1]: 'last',
}

/** "monthly on the 12th", "every 2 weeks on friday", "yearly": how often a schedule falls. */
export function frequencyWords(s: ScheduleWords): string {
  const every = (one: string, many: string) =>
    s.interval && s.interval > 1 ? `every ${s.interval} ${many}` : one
  const day = s.dayOfMonth ? ` on the ${ordinal(s.dayOfMonth)}` : ''
  const weekday = s.weekday ? ` on ${s.weekday}` : ''
  switch (s.frequency) {
    case 'daily':
      return every('daily', 'days')
    case 'weekly':
      return every('weekly', 'weeks') + weekday
    case 'biweekly':
      return (s.interval && s.interval > 1 ? `every ${2 * s.interval} weeks` : 'every two weeks') + weekday
    case 'monthly':
      return every('monthly', 'months') + day
    case 'monthly_last_day':
      return `${every('monthly', 'months')} on the last day`
    case 'monthly_nth_weekday':
      return `${every('monthly', 'months')} on the ${NTH[s.weekOfMonth ?? 1] ?? ''} ${s.weekday ?? 'weekday'}`
    default:
      return every('yearly', 'years') + day
  }
}

/** 1st, 2nd, 3rd, 4th, 11th, 21st. */
export function ordinal(n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13
  const suffix = teen ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th')
  return `${n}${suffix}`
}
