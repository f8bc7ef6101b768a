import type { Hearth } from '@hearth/client'
import { useEffect, useState } from 'preact/hooks'
import { errorMessage, formatCents, monthName } from '../../format.ts'
import { type QueryResult, useWatch } from '../../hooks.ts'
import { EMPTY_WHAT_IF, monthsWords, type WhatIfArgs, type WhatIfForm, whatIfArgs } from './what-if.ts'

type Projection = QueryResult<'loans.projection'>
type Simulation = QueryResult<'loans.simulation'>

const FIELDS: { field: keyof WhatIfForm; label: string; hint: string }[] = [
  { field: 'extraMonthly', label: 'Extra each month', hint: 'Added to every payment from this month’s on.' },
  { field: 'lumpSum', label: 'Lump sum this month', hint: 'Extra principal with this month’s payment only.' },
  { field: 'payment', label: 'Different monthly payment', hint: 'Principal and interest, escrow on top.' },
  { field: 'targetMonth', label: 'Paid off by', hint: 'Hearth works out the payment that does it.' },
]

/**
 * A what-if beside the current plan: extra each month, a lump sum, a different payment or a
 * target payoff month, answered by the engine's `loans.simulation` with the months and interest
 * it saves. Its schedule is handed up for the chart.
 */
export function WhatIfPanel(props: {
  hearth: Hearth
  id: string
  currency: string
  projection: Projection
  onSchedule: (rows: Simulation['schedule'] | null) => void
}) {
  const { currency, projection: p } = props
  const [form, setForm] = useState<WhatIfForm>(EMPTY_WHAT_IF)
  const [args, setArgs] = useState<WhatIfArgs | null>(null)
  const [invalid, setInvalid] = useState<{ field: keyof WhatIfForm; message: string } | null>(null)
  const simulation = useWatch(props.hearth, 'loans.simulation', args ? { id: props.id, ...args } : null)
  const s = simulation.data
  useEffect(() => props.onSchedule(args && s ? s.schedule : null), [args, s])
  const money = (cents: string) => formatCents(cents, currency)
  const submit = (event: Event) => {
    event.preventDefault()
    const read = whatIfArgs(form)
    if ('field' in read) return setInvalid(read)
    setInvalid(null)
    setArgs(read.args)
  }

  return (
    <section class="card stack" aria-labelledby="what-if-title" data-panel="what-if">
      <h2 id="what-if-title" class="card-title">
        What if
      </h2>
      <form class="stack" onSubmit={submit} aria-label="What if">
        <div class="report-range">
          {FIELDS.map(({ field, label, hint }) => (
            <div class="report-field" key={field}>
              <label for={`what-if-${field}`}>{label}</label>
              {field === 'targetMonth' ? (
                <input
                  id={`what-if-${field}`}
                  name={field}
                  type="month"
                  value={form[field]}
                  aria-describedby={`what-if-${field}-hint`}
                  aria-invalid={invalid?.field === field ? true : undefined}
                  onInput={(e) => setForm({ ...form, [field]: e.currentTarget.value })}
                />
              ) : (
                <input
                  id={`what-if-${field}`}
                  name={field}
                  inputMode="decimal"
                  value={form[field]}
                  aria-describedby={`what-if-${field}-hint`}
                  aria-invalid={invalid?.field === field ? true : undefined}
                  onInput={(e) => setForm({ ...form, [field]: e.currentTarget.value })}
                />
              )}
              <span id={`what-if-${field}-hint`} class="muted small">
                {hint}
              </span>
            </div>
          ))}
        </div>
        <div class="row">
          <button type="submit" class="primary">
            Compare with the current plan
          </button>
          <button
            type="button"
            class="ghost"
            onClick={() => {
              setForm(EMPTY_WHAT_IF)
              setArgs(null)
              setInvalid(null)
            }}
          >
            Clear
          </button>
        </div>
        {invalid && (
          <p class="error" role="alert">
            {invalid.message}
          </p>
        )}
      </form>
      <div aria-live="polite">
        {args && simulation.error !== undefined && (
          <p class="error" role="alert" data-code={(simulation.error as { code?: string })?.code}>
            {errorMessage(simulation.error)}
          </p>
        )}
        {args && simulation.pending && <p class="muted">Working it out…</p>}
        {args && s && <Comparison p={p} s={s} money={money} />}
      </div>
    </section>
  )
}

function Comparison(props: { p: Projection; s: Simulation; money: (cents: string) => string }) {
  const { s, money } = props
  const c = s.comparison
  const saved = BigInt(c.interestSavedCents)
  return (
    <div
      class="stack"
      data-comparison
      data-months-saved={c.monthsSaved}
      data-interest-saved-cents={c.interestSavedCents}
    >
      <p class="report-summary">
        {c.monthsSaved >= 0 ? (
          <>
            Paid off <strong data-field="months-saved">{monthsWords(c.monthsSaved)}</strong> sooner
          </>
        ) : (
          <>
            Paid off <strong data-field="months-saved">{monthsWords(c.monthsSaved)}</strong> later
          </>
        )}
        , with{' '}
        <strong data-field="interest-saved">
          {money(saved < 0n ? (-saved).toString() : c.interestSavedCents)}
        </strong>{' '}
        {saved < 0n ? 'more' : 'less'} interest.
      </p>
      <table class="table">
        <caption class="visually-hidden">The what-if beside the current plan</caption>
        <thead>
          <tr>
            <th scope="col" />
            <th scope="col" class="num">
              Current plan
            </th>
            <th scope="col" class="num">
              What-if
            </th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">Monthly payment</th>
            <td class="num" data-cents={c.basePaymentCents}>
              {money(c.basePaymentCents)}
            </td>
            <td class="num" data-cents={s.paymentCents}>
              {money(s.paymentCents)}
            </td>
          </tr>
          <tr>
            <th scope="row">Paid off</th>
            <td class="num">{monthName(c.basePayoffYearMonth)}</td>
            <td class="num">{monthName(s.payoffYearMonth)}</td>
          </tr>
          <tr>
            <th scope="row">Payments</th>
            <td class="num">{props.p.paymentCount}</td>
            <td class="num">{s.paymentCount}</td>
          </tr>
          <tr>
            <th scope="row">Total interest</th>
            <td class="num" data-cents={c.baseTotalInterestCents}>
              {money(c.baseTotalInterestCents)}
            </td>
            <td class="num" data-cents={s.totalInterestCents}>
              {money(s.totalInterestCents)}
            </td>
          </tr>
        </tbody>
      </table>
    </div>
  )
}
