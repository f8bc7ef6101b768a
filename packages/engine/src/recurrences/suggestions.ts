import { type Kysely, sql, type Transaction } from 'kysely'
import { normalizePayeeName } from '../catalog/model.ts'
import type { Database } from '../database.ts'
import { addDays, daysBetween } from '../ledger/model.ts'
import type { Cadence } from './cadence.ts'
import { weekdayOf, weekOfMonth } from './cadence.ts'
import { detectSeries, type HistoryRow, nearAmount } from './detect.ts'
import { externalIdOf, scheduleOf } from './model.ts'
import { occurrencesBetween } from './schedule.ts'
import { WEEKDAY_NAMES } from './schema.ts'
import type { Frequency, RecurrenceRow } from './tables.ts'

type Db = Kysely<Database> | Transaction<Database>

/** History detection reads: two years and a month, enough for a yearly charge to show twice. */
const HISTORY_DAYS = 762

/** A detected recurring charge no recurrence tracks, or a tracked one whose price changed. */
export interface RecurrenceSuggestion {
  /** Stable for what it is about: the account, payee or description and cadence, or recurrence and new price. */
  key: string
  kind: 'recurring' | 'priceChange'
  dismissed: boolean
  name: string
  accountId: string
  payeeId: string | null
  categoryId: string | null
  /** What it costs now (the new price, for a price change). */
  amountCents: string
  /** The earlier price: the schedule's, for a price change; before a detected change, otherwise. */
  previousAmountCents: string | null
  frequency: Frequency
  dayOfMonth: number | null
  weekday: (typeof WEEKDAY_NAMES)[number] | null
  weekOfMonth: number | null
  occurrences: number
  lastDate: string
  nextDate: string
  transactionIds: string[]
  recurrenceId: string | null
}

const FREQUENCY: Record<Cadence, Frequency> = {
  weekly: 'weekly',
  biweekly: 'biweekly',
  monthly: 'monthly',
  month_end: 'monthly_last_day',
  nth_weekday: 'monthly_nth_weekday',
  yearly: 'yearly',
}

/** A description folded for grouping: payee-name folding, with digits (dates, references) dropped. */
export function normalizeDescription(text: string): string {
  return normalizePayeeName(text).replace(/\d+/g, ' ').replace(/\s+/g, ' ').trim()
}

/** A short, stable, path-safe digest of a description (FNV-1a, 32 bits, base 36). */
function digest(text: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h.toString(36)
}

interface Row extends HistoryRow {
  payeeId: string | null
  payeeName: string | null
  memo: string | null
  externalId: string | null
  source: string
}

async function history(db: Db, householdId: string, today: string): Promise<Row[]> {
  const { rows } = await sql<{
    id: string
    account_id: string
    date: string
    amount_cents: number
    category_id: string | null
    payee_id: string | null
    payee_name: string | null
    memo: string | null
    external_id: string | null
    source: string
  }>`
    select t.id, t.account_id, t.date, t.amount_cents, t.category_id, t.payee_id, p.name as payee_name,
      t.memo, t.external_id, t.source
    from transactions t
    left join payees p on p.household_id = t.household_id and p.id = t.payee_id
    where t.household_id = ${householdId} and t.deleted_at is null and t.merged_into_id is null
      and t.kind = 'normal' and t.transfer_group_id is null
      and t.date > ${addDays(today, -HISTORY_DAYS)} and t.date <= ${today}`.execute(db)
  return rows.map((r) => ({
    id: r.id,
    accountId: r.account_id,
    date: r.date,
    amountCents: Number(r.amount_cents),
    categoryId: r.category_id,
    payeeId: r.payee_id,
    payeeName: r.payee_name,
    memo: r.memo,
    externalId: r.external_id,
    source: r.source,
  }))
}

/** What a row is about: its payee, else its folded description; null when it has neither. */
function subjectOf(r: Row): string | null {
  if (r.payeeId) return `p:${r.payeeId}`
  const text = r.memo ? normalizeDescription(r.memo) : ''
  return text ? `d:${digest(text)}` : null
}

/** The most common category of rows, or null. */
function commonCategory(rows: readonly HistoryRow[]): string | null {
  const counts = new Map<string, number>()
  for (const r of rows) if (r.categoryId) counts.set(r.categoryId, (counts.get(r.categoryId) ?? 0) + 1)
  let best: string | null = null
  for (const [id, n] of counts)
    if (best === null || n > counts.get(best)! || (n === counts.get(best)! && id < best)) best = id
  return best
}

/** Unscheduled recurring charges: groups by account and subject, minus what a live recurrence tracks. */
function detectUnscheduled(rows: readonly Row[], tracked: readonly RecurrenceRow[], today: string) {
  const trackedSubjects = new Set(
    tracked.flatMap((r) => [
      r.payee_id ? `${r.account_id}|p:${r.payee_id}` : '',
      `${r.account_id}|d:${digest(normalizeDescription(r.name))}`,
    ]),
  )
  const groups = new Map<string, Row[]>()
  for (const r of rows) {
    if (r.source === 'recurring' || r.externalId) continue
    const subject = subjectOf(r)
    if (!subject) continue
    const key = `${r.accountId}|${subject}`
    if (trackedSubjects.has(key)) continue
    const group = groups.get(key)
    if (group) group.push(r)
    else groups.set(key, [r])
  }
  const out: Omit<RecurrenceSuggestion, 'dismissed'>[] = []
  for (const [groupKey, group] of groups) {
    if (group.length < 2) continue
    const series = detectSeries(group, today)
    if (!series) continue
    const latest = series.rows[series.rows.length - 1] as Row
    const [accountId, subject] = groupKey.split('|') as [string, string]
    const name = latest.payeeName ?? latest.memo ?? subject
    out.push({
      key: `detected:${accountId}:${subject}:${series.cadence}`,
      kind: 'recurring',
      name,
      accountId,
      payeeId: latest.payeeId,
      categoryId: commonCategory(series.rows),
      amountCents: String(series.amountCents),
      previousAmountCents: series.previousAmountCents === null ? null : String(series.previousAmountCents),
      frequency: FREQUENCY[series.cadence],
      dayOfMonth:
        series.cadence === 'monthly' || series.cadence === 'yearly' ? Number(series.day.slice(8)) : null,
      weekday: ['weekly', 'biweekly', 'nth_weekday'].includes(series.cadence)
        ? WEEKDAY_NAMES[weekdayOf(series.day)]!
        : null,
      weekOfMonth: series.cadence === 'nth_weekday' ? weekOfMonth(series.day) : null,
      occurrences: series.rows.length,
      lastDate: latest.date,
      nextDate: series.nextDate,
      transactionIds: series.rows.map((r) => r.id),
      recurrenceId: null,
    })
  }
  return out
}

/**
 * Tracked recurrences whose last two occurrences (up to today) both cost something other than
 * the schedule's amount: the row of each is the one nearest it (±2 days) on the account with the
 * recurrence's payee or name, a bank or hand-entered row before the one the recurrence booked.
 */
function detectPriceChanges(rows: readonly Row[], tracked: readonly RecurrenceRow[], today: string) {
  const out: Omit<RecurrenceSuggestion, 'dismissed'>[] = []
  for (const r of tracked) {
    if (r.status !== 'active') continue
    const dates = occurrencesBetween(scheduleOf(r), addDays(today, -HISTORY_DAYS), today).slice(-2)
    if (dates.length < 2) continue
    const name = normalizeDescription(r.name)
    const mine = rows.filter(
      (x) =>
        x.accountId === r.account_id &&
        (x.externalId?.startsWith(externalIdOf(r.id, '')) ||
          (r.payee_id
            ? x.payeeId === r.payee_id
            : normalizeDescription(x.payeeName ?? x.memo ?? '') === name)),
    )
    const actual = dates.map((date) => {
      const near = mine
        .filter((x) => Math.abs(daysBetween(date, x.date)) <= 2)
        .sort(
          (a, b) =>
            Number(a.source === 'recurring') - Number(b.source === 'recurring') ||
            Math.abs(daysBetween(date, a.date)) - Math.abs(daysBetween(date, b.date)),
        )
      return near[0]
    })
    const [before, last] = actual
    if (!before || !last) continue
    const scheduled = Number(r.amount_cents)
    if (before.amountCents === scheduled || last.amountCents === scheduled) continue
    if (!nearAmount(before.amountCents, last.amountCents)) continue
    out.push({
      key: `price:${r.id}:${last.amountCents}`,
      kind: 'priceChange',
      name: r.name,
      accountId: r.account_id,
      payeeId: r.payee_id,
      categoryId: r.category_id,
      amountCents: String(last.amountCents),
      previousAmountCents: String(scheduled),
      frequency: r.frequency,
      dayOfMonth: r.day_of_month,
      weekday: r.weekday === null ? null : WEEKDAY_NAMES[r.weekday]!,
      weekOfMonth: r.week_of_month,
      occurrences: 2,
      lastDate: last.date,
      nextDate: r.next_run_date ?? last.date,
      transactionIds: [before.id, last.id],
      recurrenceId: r.id,
    })
  }
  return out
}

/** Every suggestion as of `today`, dismissed ones marked, by kind then key. */
export async function computeSuggestions(
  db: Db,
  householdId: string,
  today: string,
): Promise<RecurrenceSuggestion[]> {
  const rows = await history(db, householdId, today)
  const tracked = await db
    .selectFrom('recurrences')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('deleted_at', 'is', null)
    .execute()
  const dismissals = await db
    .selectFrom('recurrence_dismissals')
    .select('id')
    .where('household_id', '=', householdId)
    .execute()
  const dismissed = new Set(dismissals.map((d) => d.id))
  const all = [...detectPriceChanges(rows, tracked, today), ...detectUnscheduled(rows, tracked, today)]
  all.sort((a, b) => (a.kind === b.kind ? (a.key < b.key ? -1 : 1) : a.kind === 'priceChange' ? -1 : 1))
  return all.map((s) => ({ ...s, dismissed: dismissed.has(s.key) }))
}
