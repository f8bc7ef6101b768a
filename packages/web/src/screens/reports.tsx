import type { Hearth } from '@hearth/client'
import type { ChartConfiguration } from 'chart.js'
import { useMemo, useState } from 'preact/hooks'
import { formatCents, monthName } from '../format.ts'
import { useWatch } from '../hooks.ts'
import { ReadGuard, ReadMessage } from '../reads/read-guard.tsx'
import { type ReadState, readProblem } from '../reads/read-problem.ts'
import { ChartCanvas } from '../reports/chart.tsx'
import {
  lastDay,
  type MonthRange,
  PRESETS,
  type PresetId,
  presetRange,
  shortMonth,
  toUnits,
} from '../reports/range.ts'
import '../reports/reports.css'

const COLORS = {
  brand: '#2f5d50',
  brandSoft: 'rgba(47, 93, 80, 0.12)',
  good: '#3f9a6a',
  bad: '#c8553d',
  accent: '#e07a3f',
  ink2: '#5a6661',
}
/** How many payees or categories the spending chart names; the rest are summed as one bar. */
const TOP = 10

/**
 * The reports: net worth, cash flow, spending by category or payee, and age of money, over a
 * range of months. Every figure is a registry query run on the device's replica (`hearth.watch`),
 * so a change made here or synced in redraws at once. Each chart has a heading, a one-line
 * summary and a table of the same figures for people who would rather read (or cannot see) it.
 */
export function ReportsScreen(props: { hearth: Hearth }) {
  const { hearth } = props
  const [preset, setPreset] = useState<PresetId>('12m')
  const [custom, setCustom] = useState<MonthRange>(() => presetRange('12m'))
  const [by, setBy] = useState<'category' | 'payee'>('category')
  const range = preset === 'custom' ? custom : presetRange(preset)
  const valid =
    /^\d{4}-\d{2}$/.test(range.fromMonth) &&
    /^\d{4}-\d{2}$/.test(range.toMonth) &&
    range.fromMonth <= range.toMonth
  const months = valid ? range : null
  const netWorth = useWatch(hearth, 'reports.netWorth', months)
  const cashFlow = useWatch(hearth, 'reports.cashFlow', months)
  const age = useWatch(hearth, 'reports.ageOfMoney', months)
  const spending = useWatch(
    hearth,
    'reports.spending',
    valid ? { fromDate: `${range.fromMonth}-01`, toDate: lastDay(range.toMonth), groupBy: by } : null,
  )
  const rangeText = valid ? `${monthName(range.fromMonth)} to ${monthName(range.toMonth)}` : ''

  return (
    <section aria-labelledby="reports-title" class="reports">
      <header class="screen-header">
        <h1 id="reports-title">Reports</h1>
        <form class="report-range" aria-label="Range of months" onSubmit={(e) => e.preventDefault()}>
          <div class="report-field">
            <label for="report-preset">Range</label>
            <select
              id="report-preset"
              name="preset"
              value={preset}
              onChange={(e) => {
                const id = e.currentTarget.value as PresetId
                if (id === 'custom') setCustom(range)
                setPreset(id)
              }}
            >
              {PRESETS.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.label}
                </option>
              ))}
            </select>
          </div>
          <div class="report-field">
            <label for="report-from">From month</label>
            <input
              id="report-from"
              type="month"
              name="fromMonth"
              value={range.fromMonth}
              max={range.toMonth}
              onChange={(e) => {
                setCustom({ ...range, fromMonth: e.currentTarget.value })
                setPreset('custom')
              }}
            />
          </div>
          <div class="report-field">
            <label for="report-to">To month</label>
            <input
              id="report-to"
              type="month"
              name="toMonth"
              value={range.toMonth}
              min={range.fromMonth}
              onChange={(e) => {
                setCustom({ ...range, toMonth: e.currentTarget.value })
                setPreset('custom')
              }}
            />
          </div>
        </form>
      </header>
      {!valid && (
        <p class="report-error" role="alert">
          Pick a first month on or before the last month.
        </p>
      )}
      {valid && (
        <p class="muted report-range-text" aria-live="polite">
          {rangeText}
        </p>
      )}
      <ReadGuard hearth={hearth} reads={[]}>
        {() => (
          <div class="report-grid">
            <NetWorthCard watched={netWorth} />
            <CashFlowCard watched={cashFlow} />
            <SpendingCard watched={spending} by={by} setBy={setBy} />
            <AgeOfMoneyCard watched={age} />
          </div>
        )}
      </ReadGuard>
    </section>
  )
}

type Watched<K extends Parameters<Hearth['watch']>[0]> = ReturnType<typeof useWatch<K>>

/** A report's frame: heading, summary, chart, table, and what to say while loading or refused. */
function ReportCard(props: {
  id: string
  title: string
  read: ReadState
  summary?: preact.ComponentChildren
  tools?: preact.ComponentChildren
  children?: preact.ComponentChildren
}) {
  // The screen's ReadGuard has said whether the replica has rows; here, this report's own answer.
  const problem = readProblem([props.read], null)
  return (
    <section class="card report" data-report={props.id} aria-labelledby={`${props.id}-title`}>
      <div class="report-head">
        <h2 id={`${props.id}-title`} class="card-title">
          {props.title}
        </h2>
        {props.tools}
      </div>
      {problem ? (
        <ReadMessage problem={problem} />
      ) : (
        <>
          {props.summary && <p class="report-summary">{props.summary}</p>}
          {props.children}
        </>
      )}
    </section>
  )
}

/** A money cell of a figure table: the amount as people read it, and its exact cents for tests. */
function moneyCell(cents: string, currency: string): { text: string; cents: string } {
  return { text: formatCents(cents, currency), cents }
}

/** The table alternative of a chart, folded under it (open it to read every figure). */
function FigureTable(props: {
  id: string
  caption: string
  head: string[]
  rows: { key: string; cells: { text: string; cents?: string }[] }[]
}) {
  return (
    <details class="report-table">
      <summary>Show the figures as a table</summary>
      <table class="table" id={`${props.id}-table`}>
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.head.map((h, i) => (
              <th key={h} scope="col" class={i > 0 ? 'num' : ''}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((r) => (
            <tr key={r.key} data-key={r.key}>
              {r.cells.map((c, i) =>
                i === 0 ? (
                  <th key={i} scope="row">
                    {c.text}
                  </th>
                ) : (
                  <td key={i} class="num" data-cents={c.cents}>
                    {c.text}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  )
}

function axisMoney(currency: string) {
  const format = new Intl.NumberFormat('en', {
    style: 'currency',
    currency,
    notation: 'compact',
    maximumFractionDigits: 1,
  })
  return (value: number | string) => format.format(Number(value))
}

function tooltipMoney(currency: string) {
  return (item: { dataset: { label?: string }; raw: unknown }) =>
    `${item.dataset.label}: ${formatCents(String(Math.round(Number(item.raw) * 100)), currency)}`
}

function Unconverted(props: { codes: string[] }) {
  if (props.codes.length === 0) return null
  return (
    <p class="muted small">
      Left out, no exchange rate to convert them: {props.codes.join(', ')}. Add a rate under exchange rates.
    </p>
  )
}

function change(first: string, last: string, currency: string): string {
  const d = BigInt(last) - BigInt(first)
  if (d === 0n) return 'no change over the range'
  return `${d > 0n ? 'up' : 'down'} ${formatCents(d > 0n ? d : -d, currency)} over the range`
}

function NetWorthCard(props: { watched: Watched<'reports.netWorth'> }) {
  const r = props.watched.data
  const config = useMemo<ChartConfiguration | null>(() => {
    if (!r) return null
    return {
      type: 'bar',
      data: {
        labels: r.months.map((m) => shortMonth(m.month)),
        datasets: [
          {
            type: 'line',
            label: 'Net worth',
            data: r.months.map((m) => toUnits(m.netWorthCents)),
            borderColor: COLORS.brand,
            backgroundColor: COLORS.brandSoft,
            fill: 'origin',
            tension: 0.3,
            pointRadius: 3,
            order: 0,
          },
          {
            label: 'Assets',
            data: r.months.map((m) => toUnits(m.assetsCents)),
            backgroundColor: 'rgba(63, 154, 106, 0.55)',
            borderRadius: 4,
            order: 1,
          },
          {
            label: 'Liabilities',
            data: r.months.map((m) => -toUnits(m.liabilitiesCents)),
            backgroundColor: 'rgba(200, 85, 61, 0.55)',
            borderRadius: 4,
            order: 1,
          },
        ],
      },
      options: chartOptions(r.baseCurrency, { stacked: true }),
    } as ChartConfiguration
  }, [r])
  const last = r?.months.at(-1)
  return (
    <ReportCard
      id="net-worth"
      title="Net worth"
      read={props.watched}
      summary={
        r &&
        last && (
          <>
            <strong>{formatCents(last.netWorthCents, r.baseCurrency)}</strong> at the end of{' '}
            {monthName(last.month)}, {change(r.months[0]!.netWorthCents, last.netWorthCents, r.baseCurrency)}.
          </>
        )
      }
    >
      {r && config && (
        <>
          <ChartCanvas
            config={config}
            label={`Net worth by month, ${r.baseCurrency}: assets and liabilities as bars, net worth as a line. The table below has every figure.`}
          />
          <Unconverted codes={r.unconvertedCurrencies} />
          <FigureTable
            id="net-worth"
            caption="Net worth at the end of each month"
            head={['Month', 'Assets', 'Liabilities', 'Net worth']}
            rows={r.months.map((m) => ({
              key: m.month,
              cells: [
                { text: monthName(m.month) },
                moneyCell(m.assetsCents, r.baseCurrency),
                moneyCell(m.liabilitiesCents, r.baseCurrency),
                moneyCell(m.netWorthCents, r.baseCurrency),
              ],
            }))}
          />
        </>
      )}
    </ReportCard>
  )
}

function CashFlowCard(props: { watched: Watched<'reports.cashFlow'> }) {
  const r = props.watched.data
  const config = useMemo<ChartConfiguration | null>(() => {
    if (!r) return null
    return {
      type: 'bar',
      data: {
        labels: r.months.map((m) => shortMonth(m.month)),
        datasets: [
          {
            type: 'line',
            label: 'Saved',
            data: r.months.map((m) => toUnits(m.netCents)),
            borderColor: COLORS.brand,
            backgroundColor: COLORS.brand,
            pointRadius: 3,
            tension: 0.3,
            order: 0,
          },
          {
            label: 'Income',
            data: r.months.map((m) => toUnits(m.incomeCents)),
            backgroundColor: COLORS.good,
            borderRadius: 4,
            order: 1,
          },
          {
            label: 'Spending',
            data: r.months.map((m) => toUnits(m.spendingCents)),
            backgroundColor: COLORS.accent,
            borderRadius: 4,
            order: 1,
          },
        ],
      },
      options: chartOptions(r.baseCurrency),
    } as ChartConfiguration
  }, [r])
  return (
    <ReportCard
      id="cash-flow"
      title="Cash flow"
      read={props.watched}
      summary={
        r && (
          <>
            Income <strong>{formatCents(r.totals.incomeCents, r.baseCurrency)}</strong>, spending{' '}
            <strong>{formatCents(r.totals.spendingCents, r.baseCurrency)}</strong>:{' '}
            {BigInt(r.totals.netCents) >= 0n ? 'saved' : 'drew down'}{' '}
            <strong>
              {formatCents(
                BigInt(r.totals.netCents) >= 0n ? r.totals.netCents : -BigInt(r.totals.netCents),
                r.baseCurrency,
              )}
            </strong>
            .
          </>
        )
      }
    >
      {r && config && (
        <>
          <ChartCanvas
            config={config}
            label={`Income against spending by month, ${r.baseCurrency}, with what each month saved as a line. Transfers between your accounts are left out. The table below has every figure.`}
          />
          <Unconverted codes={r.unconvertedCurrencies} />
          <FigureTable
            id="cash-flow"
            caption="Income, spending and savings by month"
            head={['Month', 'Income', 'Spending', 'Saved']}
            rows={r.months.map((m) => ({
              key: m.month,
              cells: [
                { text: monthName(m.month) },
                moneyCell(m.incomeCents, r.baseCurrency),
                moneyCell(m.spendingCents, r.baseCurrency),
                moneyCell(m.netCents, r.baseCurrency),
              ],
            }))}
          />
        </>
      )}
    </ReportCard>
  )
}

function SpendingCard(props: {
  watched: Watched<'reports.spending'>
  by: 'category' | 'payee'
  setBy: (by: 'category' | 'payee') => void
}) {
  const r = props.watched.data
  const spent = useMemo(() => (r ? r.groups.filter((g) => BigInt(g.spentCents) > 0n) : []), [r])
  const config = useMemo<ChartConfiguration | null>(() => {
    if (!r) return null
    const top = spent.slice(0, TOP)
    const rest = spent.slice(TOP).reduce((s, g) => s + BigInt(g.spentCents), 0n)
    const bars = [...top.map((g) => ({ label: g.name, cents: g.spentCents }))]
    if (rest > 0n) bars.push({ label: `${spent.length - TOP} more`, cents: String(rest) })
    return {
      type: 'bar',
      data: {
        labels: bars.map((b) => b.label),
        datasets: [
          {
            label: 'Spent',
            data: bars.map((b) => toUnits(b.cents)),
            backgroundColor: bars.map((_, i) => (i < top.length ? COLORS.accent : '#c9c2b4')),
            borderRadius: 4,
          },
        ],
      },
      options: {
        ...chartOptions(r.baseCurrency, { horizontal: true }),
        plugins: {
          legend: { display: false },
          tooltip: { callbacks: { label: tooltipMoney(r.baseCurrency) } },
        },
      },
    } as ChartConfiguration
  }, [r, spent])
  const word = props.by === 'category' ? 'category' : 'payee'
  return (
    <ReportCard
      id="spending"
      title={`Spending by ${word}`}
      read={props.watched}
      tools={
        <fieldset class="report-by">
          <legend class="visually-hidden">Group spending by</legend>
          {(['category', 'payee'] as const).map((b) => (
            <label key={b} class={props.by === b ? 'on' : ''}>
              <input
                type="radio"
                class="visually-hidden"
                name="spending-by"
                value={b}
                checked={props.by === b}
                onChange={() => props.setBy(b)}
              />
              {b === 'category' ? 'Category' : 'Payee'}
            </label>
          ))}
        </fieldset>
      }
      summary={
        r && (
          <>
            <strong>{formatCents(r.spentCents, r.baseCurrency)}</strong> spent
            {spent[0] ? (
              <>
                ; the most on <strong>{spent[0].name}</strong> (
                {formatCents(spent[0].spentCents, r.baseCurrency)})
              </>
            ) : null}
            .
          </>
        )
      }
    >
      {r && config && (
        <>
          {spent.length === 0 ? (
            <p class="muted">No spending in this range.</p>
          ) : (
            <ChartCanvas
              config={config}
              height={Math.max(140, Math.min(spent.length, TOP + 1) * 28 + 40)}
              label={`Spending by ${word}, ${r.baseCurrency}, largest first; the top ${TOP} are named. The table below has every ${word}.`}
            />
          )}
          <Unconverted codes={r.unconvertedCurrencies} />
          <FigureTable
            id="spending"
            caption={`Spending by ${word}, largest first`}
            head={[word === 'category' ? 'Category' : 'Payee', 'Spent', 'Rows']}
            rows={spent.map((g) => ({
              key: g.id ?? 'none',
              cells: [{ text: g.name }, moneyCell(g.spentCents, r.baseCurrency), { text: String(g.count) }],
            }))}
          />
        </>
      )}
    </ReportCard>
  )
}

function AgeOfMoneyCard(props: { watched: Watched<'reports.ageOfMoney'> }) {
  const r = props.watched.data
  const config = useMemo<ChartConfiguration | null>(() => {
    if (!r) return null
    return {
      type: 'line',
      data: {
        labels: r.months.map((m) => shortMonth(m.month)),
        datasets: [
          {
            label: 'Age of money (days)',
            data: r.months.map((m) => m.days),
            borderColor: COLORS.brand,
            backgroundColor: COLORS.brandSoft,
            fill: 'origin',
            tension: 0.3,
            pointRadius: 3,
            spanGaps: false,
          },
        ],
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        interaction: { mode: 'index', intersect: false },
        plugins: { legend: { display: false } },
        scales: {
          x: { grid: { display: false }, ticks: { maxRotation: 0, autoSkipPadding: 10 } },
          y: { beginAtZero: true, title: { display: true, text: 'days' }, ticks: { precision: 0 } },
        },
      },
    } as ChartConfiguration
  }, [r])
  const last = r ? [...r.months].reverse().find((m) => m.days !== null) : undefined
  return (
    <ReportCard
      id="age-of-money"
      title="Age of money"
      read={props.watched}
      summary={
        r &&
        (last ? (
          <>
            Money you spend had waited <strong>{last.days} days</strong> on {longDay(last.asOf)}
            {last.days! >= 30 ? ': more than a month of buffer.' : '.'}
          </>
        ) : (
          <>Age of money shows once ten payments have left your cash accounts.</>
        ))
      }
    >
      {r && config && (
        <>
          <ChartCanvas
            config={config}
            label="Age of money in days at the end of each month. The table below has every figure."
          />
          <FigureTable
            id="age-of-money"
            caption="Age of money at the end of each month"
            head={['Month', 'Days']}
            rows={r.months.map((m) => ({
              key: m.month,
              cells: [{ text: monthName(m.month) }, { text: m.days === null ? 'not yet' : String(m.days) }],
            }))}
          />
        </>
      )}
    </ReportCard>
  )
}

/** "31 December 2025". */
function longDay(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  })
}

function chartOptions(currency: string, opts: { stacked?: boolean; horizontal?: boolean } = {}) {
  const money = { ticks: { callback: axisMoney(currency) }, grid: { color: '#eee9df' } }
  const plain = {
    grid: { display: false },
    stacked: opts.stacked ?? false,
    ticks: { maxRotation: 0, autoSkipPadding: 10 },
  }
  return {
    responsive: true,
    maintainAspectRatio: false,
    animation: false,
    indexAxis: opts.horizontal ? 'y' : 'x',
    interaction: { mode: 'index', intersect: false },
    plugins: {
      legend: { position: 'bottom', labels: { boxWidth: 12, boxHeight: 12, usePointStyle: true } },
      tooltip: { callbacks: { label: tooltipMoney(currency) } },
    },
    scales: opts.horizontal
      ? { x: money, y: { grid: { display: false } } }
      : { x: plain, y: { ...money, stacked: opts.stacked ?? false } },
  }
}
