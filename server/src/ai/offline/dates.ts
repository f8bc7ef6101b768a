/** A period a question names, with the words to say it back. */
export interface Period {
  fromDate: string
  toDate: string
  label: string
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
]
const MONTH_WORD =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)'

const pad = (n: number) => String(n).padStart(2, '0')
const iso = (y: number, m: number, d: number) => `${y}-${pad(m)}-${pad(d)}`
const lastDay = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate()
const monthIndex = (word: string) => MONTHS.findIndex((m) => m.startsWith(word.slice(0, 3)))
const capital = (s: string) => s[0]!.toUpperCase() + s.slice(1)

function shift(today: string, days: number): string {
  const d = new Date(`${today}T00:00:00Z`)
  d.setUTCDate(d.getUTCDate() + days)
  return d.toISOString().slice(0, 10)
}

/** The whole month `offset` months from today's (0: this month, -1: last month). */
export function monthPeriod(today: string, offset: number): Period & { month: string } {
  const y0 = Number(today.slice(0, 4))
  const m0 = Number(today.slice(5, 7)) - 1 + offset
  const y = y0 + Math.floor(m0 / 12)
  const m = (((m0 % 12) + 12) % 12) + 1
  const label =
    offset === 0
      ? 'this month'
      : offset === -1
        ? 'last month'
        : offset === 1
          ? 'next month'
          : `${capital(MONTHS[m - 1]!)} ${y}`
  return { fromDate: iso(y, m, 1), toDate: iso(y, m, lastDay(y, m)), label, month: `${y}-${pad(m)}` }
}

/**
 * The period a question names, read against the caller's local day: "last month", "this year",
 * "since March", "in March", "March 2025", "last 30 days", "last week", "yesterday", "today",
 * "year to date". Null when it names none.
 */
export function parsePeriod(text: string, today: string): Period | null {
  const t = text.toLowerCase()
  const year = Number(today.slice(0, 4))
  const currentMonth = Number(today.slice(5, 7))
  const days = /\b(?:last|past|previous)\s+(\d{1,3})\s+days?\b/.exec(t)
  if (days) {
    const n = Number(days[1])
    return { fromDate: shift(today, -(n - 1)), toDate: today, label: `the last ${n} days` }
  }
  if (/\b(?:last|previous|past)\s+month\b|\bmonth before\b/.test(t)) return monthPeriod(today, -1)
  if (/\bthis\s+month\b|\bso far this month\b|\bcurrent month\b/.test(t)) return monthPeriod(today, 0)
  if (/\bnext\s+month\b/.test(t)) return monthPeriod(today, 1)
  if (/\b(?:this\s+year|year\s+to\s+date|ytd|so far this year)\b/.test(t)) {
    return { fromDate: iso(year, 1, 1), toDate: today, label: 'this year' }
  }
  if (/\b(?:last|previous|past)\s+year\b/.test(t)) {
    return { fromDate: iso(year - 1, 1, 1), toDate: iso(year - 1, 12, 31), label: `${year - 1}` }
  }
  if (/\b(?:last|previous|past)\s+week\b/.test(t)) {
    return { fromDate: shift(today, -13), toDate: shift(today, -7), label: 'last week' }
  }
  if (/\bthis\s+week\b/.test(t))
    return { fromDate: shift(today, -6), toDate: today, label: 'the last 7 days' }
  if (/\byesterday\b/.test(t))
    return { fromDate: shift(today, -1), toDate: shift(today, -1), label: 'yesterday' }
  if (/\btoday\b/.test(t)) return { fromDate: today, toDate: today, label: 'today' }
  const since = new RegExp(`\\b(?:since|from)\\s+${MONTH_WORD}(?:\\s+(\\d{4}))?\\b`).exec(t)
  if (since) {
    const mi = monthIndex(since[1]!) + 1
    const y = since[2] ? Number(since[2]) : mi > currentMonth ? year - 1 : year
    return { fromDate: iso(y, mi, 1), toDate: today, label: `since ${capital(MONTHS[mi - 1]!)} ${y}` }
  }
  const monthYear = new RegExp(`\\b${MONTH_WORD}\\s+(\\d{4})\\b`).exec(t)
  if (monthYear) {
    const mi = monthIndex(monthYear[1]!) + 1
    const y = Number(monthYear[2])
    return {
      fromDate: iso(y, mi, 1),
      toDate: iso(y, mi, lastDay(y, mi)),
      label: `${capital(MONTHS[mi - 1]!)} ${y}`,
    }
  }
  const inMonth = new RegExp(`\\b(?:in|during|for|of)\\s+${MONTH_WORD}\\b`).exec(t)
  if (inMonth) {
    const mi = monthIndex(inMonth[1]!) + 1
    const y = mi > currentMonth ? year - 1 : year
    return {
      fromDate: iso(y, mi, 1),
      toDate: iso(y, mi, lastDay(y, mi)),
      label: `${capital(MONTHS[mi - 1]!)} ${y}`,
    }
  }
  const inYear = /\b(?:in|during)\s+(\d{4})\b/.exec(t)
  if (inYear) {
    const y = Number(inYear[1])
    return { fromDate: iso(y, 1, 1), toDate: y === year ? today : iso(y, 12, 31), label: `${y}` }
  }
  return null
}
