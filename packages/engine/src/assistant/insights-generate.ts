import { type Kysely, sql } from 'kysely'
import { getBudgetMonth } from '../budgets/queries.ts'
import type { Database } from '../database.ts'
import { localDate } from '../ledger/model.ts'
import type { HouseholdContext } from '../mutator/context.ts'
import { SCOPES } from '../scopes.ts'
import { newUlid } from '../shared/ulid.ts'
import type { AiInsightsTable } from './tables.ts'

type Candidate = Omit<
  AiInsightsTable,
  'household_id' | 'id' | 'created_at' | 'dismissed_at' | 'dismissed_by' | 'evidence'
> & {
  evidence: Record<string, unknown>
}

/** Days back an unusual charge is looked for; older rows are the payee's history. */
const RECENT_DAYS = 30
/** A charge is unusual at this many times the payee's median, and at least this many cents above it. */
const UNUSUAL_FACTOR = 2n
const UNUSUAL_MIN_CENTS = 1000n
/** A category trends up when last month is 1.5 times its 3-month average and at least 50.00 more. */
const TREND_MIN_CENTS = 5000n

const pad = (n: number) => String(n).padStart(2, '0')
function monthOf(today: string, offset: number): { month: string; start: string; end: string } {
  const d = new Date(Date.UTC(Number(today.slice(0, 4)), Number(today.slice(5, 7)) - 1 + offset, 1))
  const y = d.getUTCFullYear()
  const m = d.getUTCMonth() + 1
  const end = new Date(Date.UTC(y, m, 0)).getUTCDate()
  return { month: `${y}-${pad(m)}`, start: `${y}-${pad(m)}-01`, end: `${y}-${pad(m)}-${pad(end)}` }
}
function daysBefore(today: string, days: number): string {
  const d = new Date(`${today}T00:00:00Z`)
  d.setUTCDate(d.getUTCDate() - days)
  return d.toISOString().slice(0, 10)
}

async function overspending(
  db: Kysely<Database>,
  ctx: HouseholdContext,
  today: string,
): Promise<Candidate[]> {
  const out: Candidate[] = []
  for (const offset of [-1, 0]) {
    const { month, start, end } = monthOf(today, offset)
    const snap = await getBudgetMonth.run(db, { month }, ctx)
    for (const group of snap.groups) {
      if (group.isIncome) continue
      for (const c of group.categories) {
        if (BigInt(c.availableCents) >= 0n || c.deleted) continue
        out.push({
          kind: 'overspending',
          dedupe_key: `overspending:${month}:${c.id}`,
          period_start: start,
          period_end: end,
          severity: 'warning',
          title: `${c.name} is overspent in ${month}`,
          body: `${c.name} has ${c.assignedCents} cents assigned and ${-BigInt(c.activityCents)} cents spent: ${-BigInt(c.availableCents)} cents over.`,
          evidence: {
            month,
            categoryId: c.id,
            categoryName: c.name,
            assignedCents: c.assignedCents,
            activityCents: c.activityCents,
            availableCents: c.availableCents,
          },
        })
      }
    }
  }
  return out
}

async function unusualCharges(
  db: Kysely<Database>,
  householdId: string,
  today: string,
): Promise<Candidate[]> {
  const from = daysBefore(today, RECENT_DAYS - 1)
  const { rows } = await sql<{
    id: string
    date: string
    amount_cents: string
    payee_id: string
    payee: string
    n: string
    median: string
    max_: string
  }>`
    with live as (
      select id, date, amount_cents, payee_id from transactions
      where household_id = ${householdId} and amount_cents < 0 and payee_id is not null and deleted_at is null
        and merged_into_id is null and transfer_group_id is null and kind = 'normal' and date <= ${today}
    ), history as (
      select payee_id, count(*) as n, percentile_disc(0.5) within group (order by -amount_cents) as median,
        max(-amount_cents) as max_
      from live where date < ${from} group by payee_id having count(*) >= 3
    )
    select r.id, r.date, r.amount_cents, r.payee_id, p.name as payee, h.n, h.median, h.max_
    from live r
    join history h on h.payee_id = r.payee_id
    join payees p on p.household_id = ${householdId} and p.id = r.payee_id
    where r.date >= ${from}
      and -r.amount_cents >= ${UNUSUAL_FACTOR}::bigint * h.median
      and -r.amount_cents - h.median >= ${UNUSUAL_MIN_CENTS}::bigint
    order by r.date, r.id`.execute(db)
  return rows.map((r) => ({
    kind: 'unusual_charge',
    dedupe_key: `unusual_charge:${r.id}`,
    period_start: r.date,
    period_end: r.date,
    severity: 'alert' as const,
    title: `Unusual charge from ${r.payee}`,
    body: `${r.payee} charged ${-BigInt(r.amount_cents)} cents on ${r.date}; its usual charge is ${r.median} cents (${r.n} earlier charges, the largest ${r.max_}).`,
    evidence: {
      transactionId: r.id,
      date: r.date,
      amountCents: String(r.amount_cents),
      payeeId: r.payee_id,
      payeeName: r.payee,
      history: { count: Number(r.n), medianCents: String(r.median), maxCents: String(r.max_), before: from },
    },
  }))
}

async function trendingUp(db: Kysely<Database>, householdId: string, today: string): Promise<Candidate[]> {
  const last = monthOf(today, -1)
  const first = monthOf(today, -4)
  const { rows } = await sql<{ category_id: string; name: string; month: string; spent: string }>`
    with lines as (
      select to_char(t.date::date, 'YYYY-MM') as month, coalesce(s.category_id, t.category_id) as category_id,
        coalesce(s.amount_cents, t.amount_cents) as amount
      from transactions t
      join accounts a on a.household_id = t.household_id and a.id = t.account_id and a.type in ('cash', 'credit')
      left join transaction_splits s on s.household_id = t.household_id and s.transaction_id = t.id
      where t.household_id = ${householdId} and t.date between ${first.start} and ${last.end}
        and t.deleted_at is null and t.merged_into_id is null and t.transfer_group_id is null and t.kind = 'normal'
    )
    select l.category_id, c.name, l.month, -sum(l.amount) as spent
    from lines l join categories c on c.household_id = ${householdId} and c.id = l.category_id
    group by 1, 2, 3`.execute(db)
  const byCategory = new Map<string, { name: string; months: Map<string, bigint> }>()
  for (const r of rows) {
    const e = byCategory.get(r.category_id) ?? { name: r.name, months: new Map() }
    e.months.set(r.month, BigInt(r.spent))
    byCategory.set(r.category_id, e)
  }
  const earlier = [-4, -3, -2].map((o) => monthOf(today, o).month)
  const out: Candidate[] = []
  for (const [categoryId, e] of byCategory) {
    const now = e.months.get(last.month) ?? 0n
    const before = earlier.map((m) => e.months.get(m) ?? 0n)
    const avg = before.reduce((s, v) => s + v, 0n) / 3n
    if (avg <= 0n || now * 2n < avg * 3n || now - avg < TREND_MIN_CENTS) continue
    out.push({
      kind: 'category_trending_up',
      dedupe_key: `category_trending_up:${last.month}:${categoryId}`,
      period_start: last.start,
      period_end: last.end,
      severity: 'info',
      title: `${e.name} spending is up`,
      body: `${e.name}: ${now} cents in ${last.month}, against an average of ${avg} cents over the three months before.`,
      evidence: {
        categoryId,
        categoryName: e.name,
        month: last.month,
        spentCents: String(now),
        averageCents: String(avg),
        months: Object.fromEntries(earlier.map((m, i) => [m, String(before[i])])),
      },
    })
  }
  return out
}

/**
 * Generates the household's insights from its data as of `today`: overspending against the
 * budget (this month and last), unusual charges for a payee against its own history, and
 * categories trending up. Each rests on its evidence; one already made, shown or dismissed, is
 * never made again (its dedupe key). Answers how many were new.
 */
export async function generateInsights(
  db: Kysely<Database>,
  householdId: string,
  today: string,
  now: Date,
): Promise<number> {
  const ctx: HouseholdContext = { householdId, userId: 'system', role: 'owner', scopes: [...SCOPES], now }
  const candidates = [
    ...(await overspending(db, ctx, today)),
    ...(await unusualCharges(db, householdId, today)),
    ...(await trendingUp(db, householdId, today)),
  ]
  if (candidates.length === 0) return 0
  const inserted = await db
    .insertInto('ai_insights')
    .values(
      candidates.map((c) => ({
        ...c,
        household_id: householdId,
        id: newUlid(),
        evidence: JSON.stringify(c.evidence),
        created_at: now,
      })),
    )
    .onConflict((oc) => oc.columns(['household_id', 'dedupe_key']).doNothing())
    .returning('id')
    .execute()
  return inserted.length
}

/** Generates insights for every household, each on its own local day; stops between households when asked. */
export async function generateAllInsights(
  db: Kysely<Database>,
  now: Date,
  signal?: AbortSignal,
): Promise<number> {
  const households = await db.selectFrom('households').select(['id', 'time_zone']).orderBy('id').execute()
  let created = 0
  for (const h of households) {
    if (signal?.aborted) break
    created += await generateInsights(db, h.id, localDate(now, h.time_zone), now)
  }
  return created
}
