import type { Upcoming } from '@hearth/engine'
import { type AnswerKit, bullets, formatCents, periodText, plural, use } from './answer-kit.ts'
import { shiftDays } from './periods.ts'

/** What is coming in the next days (30 unless the question says), from `recurrences_upcoming`. */
export async function answerUpcoming(kit: AnswerKit): Promise<string> {
  const p = kit.u.periods[0]
  const today = kit.req.today
  const days =
    kit.u.n ??
    (p && p.toDate > today ? Math.round((Date.parse(p.toDate) - Date.parse(today)) / 86_400_000) + 1 : 30)
  const window = {
    fromDate: today,
    toDate: shiftDays(today, Math.min(days, 366) - 1),
    label: `the next ${days} days`,
  }
  const up = await use<Upcoming>(kit, 'recurrences_upcoming', { days: Math.min(days, 366) })
  const out = up.items.filter((i) => BigInt(i.amountCents) < 0n || i.kind === 'cardPaymentDue')
  if (out.length === 0) return `Nothing is due ${periodText(window)}.`
  const total = out.reduce(
    (s, i) => s + (BigInt(i.amountCents) < 0n ? -BigInt(i.amountCents) : BigInt(i.amountCents)),
    0n,
  )
  const shown = out
    .slice(0, 12)
    .map(
      (i) =>
        `${i.date} ${i.name ?? (i.kind === 'cardPaymentDue' ? 'Card payment due' : 'Unnamed')}: ${kit.money(BigInt(i.amountCents) < 0n ? -BigInt(i.amountCents) : BigInt(i.amountCents))}`,
    )
  const more = out.length > 12 ? `\n…and ${plural(out.length - 12, 'more')}.` : ''
  return `${plural(out.length, 'bill')} due ${periodText(window)}, ${kit.money(total)} in all:\n${bullets(shown)}${more}`
}

interface Recurrence {
  name: string
  amountCents: string
  currency: string
  frequency: string
  interval: number
  status: string
  nextRunDate: string | null
}

/** Months' worth per occurrence: numerator and denominator of its amount a month. */
const PER_MONTH: Record<string, [bigint, bigint]> = {
  daily: [365n, 12n],
  weekly: [52n, 12n],
  biweekly: [26n, 12n],
  monthly: [1n, 1n],
  monthly_last_day: [1n, 1n],
  monthly_nth_weekday: [1n, 1n],
  yearly: [1n, 12n],
}

/** Active recurring payments, each with its amount and cadence, and what they come to a month. */
export async function answerSubscriptions(kit: AnswerKit): Promise<string> {
  const { items } = await use<{ items: Recurrence[] }>(kit, 'recurrences_list', {})
  const active = items.filter((r) => r.status === 'active' && BigInt(r.amountCents) < 0n)
  if (active.length === 0) return 'You have no active recurring payments.'
  let monthly = 0n
  const lines = active.map((r) => {
    const [num, den] = PER_MONTH[r.frequency] ?? [1n, 1n]
    const cents = -BigInt(r.amountCents)
    if (r.currency === kit.req.currency)
      monthly += (cents * num * 2n + den * BigInt(r.interval)) / (2n * den * BigInt(r.interval))
    const every =
      r.interval === 1
        ? r.frequency.replace(/_.*/, '')
        : `every ${r.interval} (${r.frequency.replace(/_.*/, '')})`
    return `${r.name}: ${formatCents(cents, r.currency)} ${every}${r.nextRunDate ? `, next on ${r.nextRunDate}` : ''}`
  })
  const asked = /\b(?:go(?:ne)? up|price|prices|chang|rais|increas)/.test(kit.u.masked)
  return `${plural(active.length, 'active recurring payment')}, about ${kit.money(monthly)} a month in ${kit.req.currency}:\n${bullets(lines)}${
    asked ? '\nI do not track price changes yet: these are the amounts each recurrence is set to.' : ''
  }`
}
