import type { LargeTransaction, SpendingReport } from '@hearth/engine'
import {
  type AnswerKit,
  bullets,
  Decline,
  mentioned,
  periodOf,
  periodText,
  plural,
  use,
} from './answer-kit.ts'
import type { Mention } from './names.ts'
import { monthPeriod, type Period, wholeMonths } from './periods.ts'

/** How many lines a breakdown shows before it sums the rest into one. */
const LINES = 8

const FILTER = { category: 'categoryId', payee: 'payeeId', tag: 'tagId', account: 'accountId' } as const

/** The thing a question asks about, or none; a name it uses that matches nothing is declined. */
function targetOf(kit: AnswerKit): Mention | undefined {
  const target = mentioned(kit, 'category', 'payee', 'tag', 'account')
  if (!target && kit.u.unknownWords.length > 0) {
    throw new Decline(
      `I could not find "${kit.u.unknownWords.join(' ')}" among your categories, payees, accounts or tags.`,
    )
  }
  return target
}

function report(kit: AnswerKit, p: Period, groupBy: string, target?: Mention): Promise<SpendingReport> {
  return use<SpendingReport>(kit, 'reports_spending', {
    fromDate: p.fromDate,
    toDate: p.toDate,
    groupBy,
    ...(target && { [FILTER[target.item.kind]]: target.item.id }),
  })
}

/** Lines by `netSpentCents`, the rest summed into one, so the lines add up to the headline. */
function lines(kit: AnswerKit, r: SpendingReport, limit = LINES): string[] {
  const groups = r.groups.filter((g) => g.netSpentCents !== '0')
  const shown = groups.slice(0, limit).map((g) => `${g.name}: ${kit.money(g.netSpentCents)}`)
  const rest = groups.slice(limit)
  if (rest.length > 0) {
    const sum = rest.reduce((s, g) => s + BigInt(g.netSpentCents), 0n)
    shown.push(`Everything else (${plural(rest.length, 'more line')}): ${kit.money(sum)}`)
  }
  return shown
}

/** Spending net of refunds, on one thing or in all, with its lines beneath when in all. */
export async function answerSpending(kit: AnswerKit): Promise<string> {
  const p = periodOf(kit)
  const target = kit.u.groupBy && kit.u.intent === 'breakdown' ? undefined : targetOf(kit)
  if (target) {
    const r = await report(kit, p, 'none', target)
    if (target.item.isIncome) {
      return `${target.item.name} is an income category: you earned ${kit.money(r.earnedCents)} in it ${periodText(p)}, in ${plural(r.count, 'transaction')}.`
    }
    return `You spent ${kit.money(r.netSpentCents)} on ${target.item.name} ${periodText(p)}, net of refunds, in ${plural(r.count, 'transaction')}.`
  }
  const groupBy = kit.u.groupBy === 'payee' || kit.u.groupBy === 'tag' ? kit.u.groupBy : 'category'
  const r = await report(kit, p, groupBy)
  if (groupBy === 'tag') {
    const tagged = r.groups.filter((g) => g.id !== null)
    return `Spending by tag ${periodText(p)} (a row with two tags counts under both):\n${bullets(tagged.map((g) => `${g.name}: ${kit.money(g.netSpentCents)}`))}`
  }
  const shown = lines(kit, r)
  return `You spent ${kit.money(r.netSpentCents)} ${periodText(p)}, net of refunds${shown.length ? `. By ${groupBy}:\n${bullets(shown)}` : '.'}`
}

/** Earned: money into income categories, less any money out of them. */
export async function answerIncome(kit: AnswerKit): Promise<string> {
  const p = periodOf(kit)
  const payee = mentioned(kit, 'payee')
  const r = await report(kit, p, 'none', payee)
  return `You earned ${kit.money(r.earnedCents)} ${payee ? `from ${payee.item.name} ` : ''}${periodText(p)}, counting income categories only (refunds are not earnings).`
}

/** The payees or categories that took the most. */
export async function answerTop(kit: AnswerKit): Promise<string> {
  const p = periodOf(kit)
  const groupBy = kit.u.groupBy === 'payee' ? 'payee' : 'category'
  const r = await report(kit, p, groupBy)
  const groups = r.groups.filter((g) => BigInt(g.netSpentCents) > 0n)
  const [first] = groups
  if (!first) return `There was no spending ${periodText(p)}.`
  const n = Math.min(kit.u.n ?? 5, 20)
  const rest = groups.slice(1, n).map((g) => `${g.name}: ${kit.money(g.netSpentCents)}`)
  return `The ${groupBy} you spent the most on ${periodText(p)} was ${first.name}: ${kit.money(first.netSpentCents)}, net of refunds.${rest.length ? `\nNext:\n${bullets(rest)}` : ''}`
}

/** Two periods side by side: the question's two, or this month and the one it names, or last month. */
export async function answerCompare(kit: AnswerKit): Promise<string> {
  if (kit.u.timeUnread && kit.u.periods.length === 0)
    throw new Decline('I could not tell which periods to compare.')
  const thisMonth = monthPeriod(kit.req.today, 0)
  const [first, second] = kit.u.periods
  const a = second
    ? first!
    : first && first.fromDate !== thisMonth.fromDate
      ? thisMonth
      : (first ?? thisMonth)
  const b =
    second ?? (first && first.fromDate !== thisMonth.fromDate ? first : monthPeriod(kit.req.today, -1))
  const target = targetOf(kit)
  // Both at once: on PostgreSQL, on two connections.
  const [ra, rb] = await Promise.all([
    report(kit, a, target ? 'none' : 'category', target),
    report(kit, b, target ? 'none' : 'category', target),
  ])
  const x = BigInt(ra.netSpentCents)
  const y = BigInt(rb.netSpentCents)
  const diff = x - y
  const on = target ? ` on ${target.item.name}` : ''
  const head = `You spent ${kit.money(x)}${on} ${periodText(a)}, against ${kit.money(y)} ${periodText(b)}: ${
    diff === 0n ? 'the same' : `${kit.money(diff > 0n ? diff : -diff)} ${diff > 0n ? 'more' : 'less'}`
  }, net of refunds.`
  if (target) return head
  const before = new Map(rb.groups.map((g) => [g.id, g]))
  const moves = ra.groups
    .map((g) => ({
      name: g.name,
      now: BigInt(g.netSpentCents),
      before: BigInt(before.get(g.id)?.netSpentCents ?? '0'),
    }))
    .concat(
      rb.groups
        .filter((g) => !ra.groups.some((h) => h.id === g.id))
        .map((g) => ({ name: g.name, now: 0n, before: BigInt(g.netSpentCents) })),
    )
    .map((m) => ({ ...m, d: m.now - m.before }))
    .filter((m) => m.d !== 0n)
    .sort((m, k) => ((k.d < 0n ? -k.d : k.d) > (m.d < 0n ? -m.d : m.d) ? 1 : -1))
    .slice(0, 5)
  return moves.length
    ? `${head}\nBiggest changes by category:\n${bullets(moves.map((m) => `${m.name}: ${kit.money(m.before)} → ${kit.money(m.now)}`))}`
    : head
}

/** The calendar months a period touches. */
function monthsIn(p: Period): number {
  const [y1, m1] = p.fromDate.split('-').map(Number) as [number, number]
  const [y2, m2] = p.toDate.split('-').map(Number) as [number, number]
  return (y2 - y1) * 12 + (m2 - m1) + 1
}

/** Integer cents divided, rounded half away from zero. */
export function divideCents(cents: bigint, by: number): bigint {
  const d = BigInt(by)
  const q = cents / d
  const r = cents % d
  return 2n * (r < 0n ? -r : r) >= d ? q + (cents < 0n ? -1n : 1n) : q
}

/** Spending per month on average: over the period's calendar months, by default the last 12 whole months. */
export async function answerAverage(kit: AnswerKit): Promise<string> {
  const p = periodOf(kit, wholeMonths(kit.req.today, 12))
  const target = targetOf(kit)
  const r = await report(kit, p, 'none', target)
  const months = monthsIn(p)
  const avg = divideCents(BigInt(r.netSpentCents), months)
  return `On average you spent ${kit.money(avg)} a month${target ? ` on ${target.item.name}` : ''} over ${plural(months, 'month')}, ${periodText(p)}: ${kit.money(r.netSpentCents)} in all, net of refunds.`
}

/** How many rows a period holds, for one thing or in all. */
export async function answerCount(kit: AnswerKit): Promise<string> {
  const p = periodOf(kit)
  const target = targetOf(kit)
  const r = await report(kit, p, 'none', target)
  return `${plural(r.count, 'transaction')}${target ? ` in ${target.item.name}` : ''} ${periodText(p)} (refunds count as transactions; ${kit.money(r.netSpentCents)} net).`
}

/** The biggest single expenses. */
export async function answerLargest(kit: AnswerKit): Promise<string> {
  const p = periodOf(kit)
  const limit = Math.min(Math.max(kit.u.n ?? 5, 1), 50)
  const { items } = await use<{ items: LargeTransaction[] }>(kit, 'reports_largestTransactions', {
    fromDate: p.fromDate,
    toDate: p.toDate,
    limit,
  })
  if (items.length === 0) return `There was no money out ${periodText(p)}.`
  return `The largest expenses ${periodText(p)}:\n${bullets(
    items.map(
      (t) =>
        `${t.date} ${t.payee ?? 'No payee'}: ${kit.money(-BigInt(t.amountCents))}${t.category ? ` (${t.category})` : ''}`,
    ),
  )}`
}
