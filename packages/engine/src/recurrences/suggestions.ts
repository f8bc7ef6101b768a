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

/** What the live rows in the history window have in common. */
function liveHistory(householdId: string, today: string) {
  return sql`t.household_id = ${householdId} and t.deleted_at is null and t.merged_into_id is null
      and t.kind = 'normal' and t.transfer_group_id is null
      and t.date > ${addDays(today, -HISTORY_DAYS)} and t.date <= ${today}`
}

/** How the external id of a row a recurrence booked begins (`externalIdOf`). */
const BOOKED_PREFIX = externalIdOf('', '').split(':')[0]!

/** One group of rows detection reads: an account's payee, or an account's one memo without payee. */
interface Group {
  accountId: string
  payeeId: string | null
  payeeName: string | null
  memo: string | null
  rows: HistoryRow[]
}

/** Dates of day numbers (days since 1970-01-01), each made once: a history spans a few hundred days. */
const dates = new Map<number, string>()
function dateOf(day: number): string {
  let date = dates.get(day)
  if (date === undefined) {
    date = new Date(day * 86_400_000).toISOString().slice(0, 10)
    if (dates.size > 10_000) dates.clear()
    dates.set(day, date)
  }
  return date
}

/**
 * The history detection reads, grouped by account and payee (or memo, for rows without a payee)
 * in SQL, each group's rows packed in one text (id, day number, amount): a device's embedded store hands over a few
 * hundred values instead of decoding every row of two years (bench:recurrences). Rows a
 * recurrence booked are left out: a tracked recurrence already explains them.
 */
async function groupedHistory(db: Db, householdId: string, today: string): Promise<Group[]> {
  const { rows } = await sql<{
    account_id: string
    payee_id: string | null
    memo: string | null
    payee_name: string | null
    packed: string
  }>`
    with g as (
      select t.account_id, t.payee_id, case when t.payee_id is null then t.memo end as memo,
        string_agg(t.id || ' ' || (t.date - date '1970-01-01') || ' ' || t.amount_cents, ',') as packed
      from transactions t
      where ${liveHistory(householdId, today)}
        and t.source <> 'recurring' and (t.external_id is null or t.external_id not like ${`${BOOKED_PREFIX}:%`})
        and (t.payee_id is not null or t.memo is not null)
      group by 1, 2, 3
      having count(*) >= 2 or t.payee_id is null
    )
    select g.account_id, g.payee_id, g.memo, p.name as payee_name, g.packed
    from g left join payees p on p.household_id = ${householdId} and p.id = g.payee_id`.execute(db)
  return rows.map((r) => ({
    accountId: r.account_id,
    payeeId: r.payee_id,
    payeeName: r.payee_name,
    memo: r.memo,
    rows: r.packed.split(',').map((packed) => {
      const a = packed.indexOf(' ')
      const b = packed.indexOf(' ', a + 1)
      const day = Number(packed.slice(a + 1, b))
      return {
        id: packed.slice(0, a),
        accountId: r.account_id,
        date: dateOf(day),
        day,
        amountCents: Number(packed.slice(b + 1)),
        // Read afterwards for the rows of detected series only (`withCategories`).
        categoryId: null,
      }
    }),
  }))
}

/** Detected series' categories: the most common among their rows, read for those rows alone. */
async function withCategories(
  db: Db,
  householdId: string,
  found: Omit<RecurrenceSuggestion, 'dismissed'>[],
): Promise<Omit<RecurrenceSuggestion, 'dismissed'>[]> {
  const ids = found.flatMap((s) => s.transactionIds)
  if (ids.length === 0) return found
  const rows = await db
    .selectFrom('transactions')
    .select(['id', 'category_id'])
    .where('household_id', '=', householdId)
    .where('id', 'in', ids)
    .execute()
  const category = new Map(rows.map((r) => [r.id, r.category_id]))
  return found.map((s) => ({
    ...s,
    categoryId: commonCategory(s.transactionIds.map((id) => ({ categoryId: category.get(id) ?? null }))),
  }))
}

/**
 * The rows price-change detection reads, on the accounts of active recurrences: those with a
 * tracked payee, those a recurrence booked, and every row of an account one of whose recurrences
 * has no payee (it is matched by name).
 */
async function trackedHistory(
  db: Db,
  householdId: string,
  today: string,
  tracked: readonly RecurrenceRow[],
): Promise<Row[]> {
  const active = tracked.filter((r) => r.status === 'active')
  if (active.length === 0) return []
  const accounts = [...new Set(active.map((r) => r.account_id))]
  const payees = [...new Set(active.flatMap((r) => (r.payee_id ? [r.payee_id] : [])))]
  const byName = [...new Set(active.filter((r) => !r.payee_id).map((r) => r.account_id))]
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
    where ${liveHistory(householdId, today)}
      and t.account_id in (${sql.join(accounts)})
      and (t.external_id like ${`${BOOKED_PREFIX}:%`}
        ${payees.length > 0 ? sql`or t.payee_id in (${sql.join(payees)})` : sql``}
        ${byName.length > 0 ? sql`or t.account_id in (${sql.join(byName)})` : sql``})`.execute(db)
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

/** What a group is about: its payee, else its folded memo; null when the memo folds to nothing. */
function subjectOf(g: Group): string | null {
  if (g.payeeId) return `p:${g.payeeId}`
  const text = g.memo ? normalizeDescription(g.memo) : ''
  return text ? `d:${digest(text)}` : null
}

/** The most common category of rows, or null. */
function commonCategory(rows: readonly Pick<HistoryRow, 'categoryId'>[]): string | null {
  const counts = new Map<string, number>()
  for (const r of rows) if (r.categoryId) counts.set(r.categoryId, (counts.get(r.categoryId) ?? 0) + 1)
  let best: string | null = null
  for (const [id, n] of counts)
    if (best === null || n > counts.get(best)! || (n === counts.get(best)! && id < best)) best = id
  return best
}

/**
 * Unscheduled recurring charges: groups by account and subject (memos that fold alike make one
 * group), minus what a live recurrence tracks.
 */
function detectUnscheduled(groups: readonly Group[], tracked: readonly RecurrenceRow[], today: string) {
  const trackedSubjects = new Set(
    tracked.flatMap((r) => [
      r.payee_id ? `${r.account_id}|p:${r.payee_id}` : '',
      `${r.account_id}|d:${digest(normalizeDescription(r.name))}`,
    ]),
  )
  const bySubject = new Map<string, { rows: HistoryRow[]; groups: Group[] }>()
  for (const g of groups) {
    const subject = subjectOf(g)
    if (!subject) continue
    const key = `${g.accountId}|${subject}`
    if (trackedSubjects.has(key)) continue
    const entry = bySubject.get(key)
    if (!entry) bySubject.set(key, { rows: g.rows, groups: [g] })
    else {
      entry.rows = entry.rows.concat(g.rows)
      entry.groups.push(g)
    }
  }
  const out: Omit<RecurrenceSuggestion, 'dismissed'>[] = []
  for (const [groupKey, { rows: group, groups: parts }] of bySubject) {
    if (group.length < 2) continue
    const series = detectSeries(group, today)
    if (!series) continue
    const latest = series.rows[series.rows.length - 1]!
    // Named as the latest occurrence's payee, or its memo.
    const from = parts.length === 1 ? parts[0]! : parts.find((g) => g.rows.includes(latest))!
    const [accountId, subject] = groupKey.split('|') as [string, string]
    const name = from.payeeName ?? from.memo ?? subject
    out.push({
      key: `detected:${accountId}:${subject}:${series.cadence}`,
      kind: 'recurring',
      name,
      accountId,
      payeeId: subject.startsWith('p:') ? subject.slice(2) : null,
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
  const all = [
    ...detectPriceChanges(await trackedHistory(db, householdId, today, tracked), tracked, today),
    ...(await withCategories(
      db,
      householdId,
      detectUnscheduled(await groupedHistory(db, householdId, today), tracked, today),
    )),
  ]
  all.sort((a, b) => (a.kind === b.kind ? (a.key < b.key ? -1 : 1) : a.kind === 'priceChange' ? -1 : 1))
  return all.map((s) => ({ ...s, dismissed: dismissed.has(s.key) }))
}
