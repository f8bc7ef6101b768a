import * as chrono from 'chrono-node'

/** A period a question names, with the words to say it back. */
export interface Period {
  fromDate: string
  toDate: string
  label: string
}

/** A period found in a text, and where: the span is masked before the intent is read. */
export interface FoundPeriod extends Period {
  index: number
  length: number
}

const MONTHS = 'january february march april may june july august september october november december'.split(
  ' ',
)
const MONTH_WORD =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)'
const LAST = '(?:last|past|previous|prev|prior|lst|the last|the past)'
const MONTH = '(?:month|mo|mnth|mth|monht|moth)'
const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
}
const NUMBER = `(\\d{1,3}|${Object.keys(NUMBER_WORDS).join('|')})`

const pad = (n: number) => String(n).padStart(2, '0')
const iso = (y: number, m: number, d: number) => `${y}-${pad(m)}-${pad(d)}`
const lastDay = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate()
const capital = (s: string) => s[0]!.toUpperCase() + s.slice(1)
const monthIndex = (word: string) => MONTHS.findIndex((m) => m.startsWith(word.slice(0, 3))) + 1
const count = (word: string) => NUMBER_WORDS[word] ?? Number(word)

/** The day `days` after `today` (negative: before). */
export function shiftDays(today: string, days: number): string {
  const d = new Date(`${today}T00:00:00Z`)
  d.setUTCDate(d.getUTCDate() + days)
  return d.toISOString().slice(0, 10)
}

/** The whole month `offset` months from today's (0: this month, -1: last month). */
export function monthPeriod(today: string, offset: number): Period & { month: string } {
  const m0 = Number(today.slice(5, 7)) - 1 + offset
  const y = Number(today.slice(0, 4)) + Math.floor(m0 / 12)
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

/** The whole months from `offset` months ago up to last month: "the last 3 months". */
export function wholeMonths(today: string, months: number): Period {
  return {
    fromDate: monthPeriod(today, -months).fromDate,
    toDate: monthPeriod(today, -1).toDate,
    label: months === 1 ? 'last month' : `the last ${months} whole months`,
  }
}

/** A named month of the year: this year's, or last year's when it is still ahead. */
function namedMonth(today: string, month: number, year?: number): Period {
  const y =
    year ?? (month > Number(today.slice(5, 7)) ? Number(today.slice(0, 4)) - 1 : Number(today.slice(0, 4)))
  return {
    fromDate: iso(y, month, 1),
    toDate: iso(y, month, lastDay(y, month)),
    label: `${capital(MONTHS[month - 1]!)} ${y}`,
  }
}

type Rule = [RegExp, (m: RegExpExecArray, today: string) => Period | null]

/** The phrasings chrono does not read as periods, tried first, longest first. */
const RULES: Rule[] = [
  [
    new RegExp(
      `\\b(?:since|from)\\s+(?:the\\s+)?(\\d{1,2})(?:st|nd|rd|th)\\b(?!\\s+(?:of\\s+)?${MONTH_WORD})`,
    ),
    (m, today) => {
      const day = Number(m[1])
      if (day < 1 || day > 31) return null
      const here = Number(today.slice(8, 10))
      const from = day <= here ? `${today.slice(0, 8)}${pad(day)}` : null
      const start = from ?? `${monthPeriod(today, -1).fromDate.slice(0, 8)}${pad(day)}`
      return { fromDate: start, toDate: today, label: `since the ${m[1]}${m[0].replace(/.*\d/, '')}` }
    },
  ],
  [
    new RegExp(`\\b(?:since|from)\\s+${MONTH_WORD}(?:\\s+(\\d{4}))?\\b(?!\\s+\\d{1,2}\\b)`),
    (m, today) => {
      const p = namedMonth(today, monthIndex(m[1]!), m[2] ? Number(m[2]) : undefined)
      return { fromDate: p.fromDate, toDate: today, label: `since ${p.label}` }
    },
  ],
  [
    new RegExp(`\\b${LAST}\\s+${NUMBER}\\s+days?\\b`),
    (m, today) => {
      const n = count(m[1]!)
      return { fromDate: shiftDays(today, -(n - 1)), toDate: today, label: `the last ${n} days` }
    },
  ],
  [
    new RegExp(`\\b${LAST}\\s+${NUMBER}\\s+weeks?\\b`),
    (m, today) => {
      const n = count(m[1]!)
      return { fromDate: shiftDays(today, -(7 * n - 1)), toDate: today, label: `the last ${7 * n} days` }
    },
  ],
  [new RegExp(`\\b${LAST}\\s+${NUMBER}\\s+${MONTH}s?\\b`), (m, today) => wholeMonths(today, count(m[1]!))],
  [new RegExp(`\\b${NUMBER}\\s+${MONTH}s?\\s+ago\\b`), (m, today) => monthPeriod(today, -count(m[1]!))],
  [/\b(?:the\s+)?month\s+before\s+last\b/, (_, today) => monthPeriod(today, -2)],
  [new RegExp(`\\b(?:${LAST}|lst)\\s+${MONTH}(?:'?s)?\\b`), (_, today) => monthPeriod(today, -1)],
  [
    new RegExp(
      `\\b(?:this|current|the current|so far this)\\s+${MONTH}(?:'?s)?(?:\\s+so\\s+far)?\\b|\\bmtd\\b|\\bmonth\\s+to\\s+date\\b|\\b(?:for|in|during|over)\\s+the\\s+month\\b`,
    ),
    (_, today) => monthPeriod(today, 0),
  ],
  [new RegExp(`\\bnext\\s+${MONTH}\\b`), (_, today) => monthPeriod(today, 1)],
  [
    /\b(?:this|current)\s+(?:year|yr)(?:'?s)?(?:\s+so\s+far)?\b|\bytd\b|\byear\s+to\s+date\b|\bso\s+far\s+this\s+year\b/,
    (_, today) => ({ fromDate: `${today.slice(0, 4)}-01-01`, toDate: today, label: 'this year' }),
  ],
  [
    /\b(?:last|previous|prev|past|lst)\s+(?:year|yr)(?:'?s)?\b/,
    (_, today) => {
      const y = Number(today.slice(0, 4)) - 1
      return { fromDate: `${y}-01-01`, toDate: `${y}-12-31`, label: `${y}` }
    },
  ],
  [
    /\b(?:last|previous|past)\s+quarter\b|\bthis\s+quarter\b/,
    (m, today) => {
      const q0 = Math.floor((Number(today.slice(5, 7)) - 1) / 3) - (m[0].startsWith('this') ? 0 : 1)
      const y = Number(today.slice(0, 4)) + Math.floor(q0 / 4)
      const q = ((q0 % 4) + 4) % 4
      const from = iso(y, 3 * q + 1, 1)
      const to = iso(y, 3 * q + 3, lastDay(y, 3 * q + 3))
      return { fromDate: from, toDate: to < today ? to : today, label: `Q${q + 1} ${y}` }
    },
  ],
  [
    /\b(?:last|previous|past)\s+week\b/,
    (_, today) => ({ fromDate: shiftDays(today, -13), toDate: shiftDays(today, -7), label: 'last week' }),
  ],
  [
    /\bthis\s+week\b/,
    (_, today) => ({ fromDate: shiftDays(today, -6), toDate: today, label: 'the last 7 days' }),
  ],
  [
    /\byesterday\b/,
    (_, today) => ({ fromDate: shiftDays(today, -1), toDate: shiftDays(today, -1), label: 'yesterday' }),
  ],
  [/\btoday\b/, (_, today) => ({ fromDate: today, toDate: today, label: 'today' })],
  [
    new RegExp(`\\b${MONTH_WORD}\\s+(\\d{4})\\b`),
    (m, today) => namedMonth(today, monthIndex(m[1]!), Number(m[2])),
  ],
  [
    new RegExp(
      `\\b(?:in|during|for|of|over)\\s+${MONTH_WORD}\\b(?!\\s+\\d)|\\b${MONTH_WORD}(?=(?:'s)?\\s+(?:spending|spend|income|budget|bills?|total)\\b)`,
    ),
    (m, today) => namedMonth(today, monthIndex((m[1] ?? m[2])!)),
  ],
  [
    /\b(?:in|during|for|of)\s+(20\d\d)\b/,
    (m, today) => {
      const y = Number(m[1])
      const current = Number(today.slice(0, 4))
      return y > current
        ? null
        : { fromDate: `${y}-01-01`, toDate: y === current ? today : `${y}-12-31`, label: `${y}` }
    },
  ],
]

/** A bare month name ("october vs september"), read once nothing else matched there. */
const BARE_MONTH = new RegExp(`\\b${MONTH_WORD}\\b(?!\\s+\\d)`, 'g')

function chronoPeriods(text: string, today: string): FoundPeriod[] {
  const ref = new Date(`${today}T12:00:00Z`)
  const out: FoundPeriod[] = []
  for (const r of chrono.parse(text, ref, { forwardDate: false })) {
    const day = (c: chrono.ParsedComponents) => {
      let y = c.get('year')!
      const m = c.get('month')!
      const d = c.get('day')!
      if (!c.isCertain('year') && iso(y, m, d) > today) y -= 1
      return iso(y, m, Math.min(d, lastDay(y, m)))
    }
    if (!r.start.isCertain('day')) continue
    const from = day(r.start)
    const since = /\b(?:since|from|after)\s*$/.test(text.slice(0, r.index))
    const to = r.end ? day(r.end) : since ? today : from
    if (to < from) continue
    const index = since ? text.slice(0, r.index).search(/\b(?:since|from|after)\s*$/) : r.index
    out.push({
      fromDate: from,
      toDate: to,
      label: to === from ? `on ${from}` : to === today ? `since ${from}` : `${from} to ${to}`,
      index,
      length: r.index + r.text.length - index,
    })
  }
  return out
}

/**
 * Every period a question names, in order, read against the caller's local day: "last month",
 * "last mo", "ytd", "last 30 days", "since the 3rd", "in October", "October 2025", "since March",
 * "last 3 months" (whole months), "last quarter", explicit dates through chrono.
 */
export function findPeriods(text: string, today: string): FoundPeriod[] {
  let t = text.toLowerCase()
  const found: FoundPeriod[] = []
  const take = (index: number, length: number, p: Period | null) => {
    if (!p) return
    found.push({ ...p, index, length })
    t = t.slice(0, index) + ' '.repeat(length) + t.slice(index + length)
  }
  for (const [pattern, read] of RULES) {
    const global = new RegExp(pattern.source, 'g')
    for (const m of [...t.matchAll(global)]) take(m.index!, m[0].length, read(m as RegExpExecArray, today))
  }
  for (const p of chronoPeriods(t, today)) take(p.index, p.length, p)
  for (const m of [...t.matchAll(BARE_MONTH)]) {
    if (m[0] === 'may' || m[0] === 'mar' || m[0] === 'jan' || m[0] === 'sept') continue
    take(m.index!, m[0].length, namedMonth(today, monthIndex(m[1]!)))
  }
  return found.sort((a, b) => a.index - b.index)
}

/**
 * A text with its periods masked as `token`, each with the preposition before it ("in October",
 * "over the last 3 months"), and the periods found: questions and the corpus are masked alike.
 */
export function maskPeriods(
  text: string,
  today: string,
  token: string,
): { masked: string; periods: FoundPeriod[] } {
  const periods = findPeriods(text, today)
  let masked = text
  for (const p of [...periods].sort((a, b) => b.index - a.index)) {
    const before = masked
      .slice(0, p.index)
      .replace(/(?:\b(?:in|for|during|over|of|from|within|across|on|at)\s+(?:the\s+)?)$/, '')
    masked = `${before} ${token} ${masked.slice(p.index + p.length)}`
  }
  return { masked, periods }
}

/** Words that name time: a question with one and no period read is not answered for a default. */
export const TIME_WORDS =
  /\b(?:week|weeks|month|months|year|years|quarter|days?|since|ago|yesterday|today|tonight|morning|weekend|summer|winter|spring|autumn|fall|christmas|holiday|holidays|mo|yr|ytd|mtd|20\d\d|19\d\d|\d{1,2}(?:st|nd|rd|th)|jan(?:uary)?|feb(?:ruary)?|march|apr(?:il)?|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b/
