import type { Hearth } from '@hearth/client'
import { addMonths, formatCents, formatDate, monthName, thisMonth } from '../../format.ts'
import { type QueryResult, useWatch } from '../../hooks.ts'
import { useLookups } from '../../lookups.ts'
import { ReadGuard } from '../../reads/read-guard.tsx'
import { forecastRows } from './forecast-rows.ts'
import '../../reports/reports.css'

type Forecast = QueryResult<'forecasts.get'>
type Budget = QueryResult<'budgets.get'>

/** The method in one sentence, for a household; the engine's own words are folded under it. */
export const METHOD_SENTENCE =
  'Each category’s forecast is what it has spent so far, plus the bills and dated payments still to come, plus what it usually spends in the rest of the month on everything else: the average of its last three complete months (twelve for a steady category), adjusted for the season only where your own history shows one.'

/**
 * Forecasts: this month and next, per category, what was spent so far, what is scheduled and
 * what is projected, beside what the budget assigned. Both are the engine's queries on the
 * replica (`forecasts.get`, `budgets.get`), so the figures are REST's.
 */
export function ForecastsScreen(props: { hearth: Hearth }) {
  const { hearth } = props
  const now = thisMonth()
  const next = addMonths(now, 1)
  const lookups = useLookups(hearth)
  const forecastNow = useWatch(hearth, 'forecasts.get', { month: now })
  const forecastNext = useWatch(hearth, 'forecasts.get', { month: next })
  const budgetNow = useWatch(hearth, 'budgets.get', { month: now })
  const budgetNext = useWatch(hearth, 'budgets.get', { month: next })
  return (
    <section aria-labelledby="forecasts-title" class="forecasts stack">
      <header class="screen-header">
        <h1 id="forecasts-title">Forecasts</h1>
      </header>
      <p class="muted" data-method>
        {METHOD_SENTENCE}
      </p>
      <ReadGuard
        hearth={hearth}
        reads={[forecastNow, forecastNext, budgetNow, budgetNext, lookups.reads.categories]}
      >
        {() => (
          <div class="stack">
            <MonthForecast
              forecast={forecastNow.data!}
              budget={budgetNow.data!}
              names={lookups.categoryName}
            />
            <MonthForecast
              forecast={forecastNext.data!}
              budget={budgetNext.data!}
              names={lookups.categoryName}
            />
          </div>
        )}
      </ReadGuard>
    </section>
  )
}

function MonthForecast(props: { forecast: Forecast; budget: Budget; names: ReadonlyMap<string, string> }) {
  const { forecast: f, budget } = props
  const currency = budget.currency
  const money = (cents: string) => formatCents(cents, currency)
  const rows = forecastRows(
    f.categories,
    budget.groups.flatMap((g) => g.categories),
    props.names,
  )
  const assigned = rows.reduce((sum, r) => sum + BigInt(r.assignedCents), 0n).toString()
  const id = `forecast-${f.month}`
  return (
    <section
      class="card stack"
      aria-labelledby={`${id}-title`}
      data-forecast={f.month}
      data-period={f.period}
    >
      <h2 id={`${id}-title`} class="card-title">
        {monthName(f.month)}
      </h2>
      <p class="report-summary">
        Forecast spending <strong data-cents={f.totals.totalCents}>{money(f.totals.totalCents)}</strong>{' '}
        against {money(assigned)} budgeted
        {f.asOf ? `, as of ${formatDate(f.asOf)}` : ''}.
      </p>
      <div class="table-scroll" style={{ overflowX: 'auto' }}>
        <table class="table" id={`${id}-table`}>
          <caption class="visually-hidden">
            {monthName(f.month)}: spending per category so far, scheduled and projected, beside the budget
          </caption>
          <thead>
            <tr>
              <th scope="col">Category</th>
              <th scope="col" class="num">
                Budgeted
              </th>
              <th scope="col" class="num">
                Spent so far
              </th>
              <th scope="col" class="num">
                Scheduled
              </th>
              <th scope="col" class="num">
                Projected
              </th>
              <th scope="col" class="num">
                Forecast
              </th>
              <th scope="col" class="num">
                Budget left
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.categoryId ?? 'none'} data-key={r.categoryId ?? 'none'}>
                <th scope="row">{r.name}</th>
                {[r.assignedCents, r.actualCents, r.scheduledCents, r.projectedCents, r.totalCents].map(
                  (c, i) => (
                    <td key={i} class="num" data-cents={c}>
                      {money(c)}
                    </td>
                  ),
                )}
                <td class={`num ${BigInt(r.leftCents) < 0n ? 'negative' : ''}`} data-cents={r.leftCents}>
                  {money(r.leftCents)}
                </td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr data-key="totals">
              <th scope="row">Total</th>
              {[
                assigned,
                f.totals.actualCents,
                f.totals.scheduledCents,
                f.totals.projectedCents,
                f.totals.totalCents,
              ].map((c, i) => (
                <td key={i} class="num" data-cents={c}>
                  {money(c)}
                </td>
              ))}
              <td class="num" data-cents={(BigInt(assigned) - BigInt(f.totals.totalCents)).toString()}>
                {money((BigInt(assigned) - BigInt(f.totals.totalCents)).toString())}
              </td>
            </tr>
          </tfoot>
        </table>
      </div>
      <details>
        <summary>The method in the engine’s words</summary>
        <p class="muted small">{f.method}</p>
      </details>
    </section>
  )
}
