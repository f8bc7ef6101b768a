import type { Hearth } from '@hearth/client'
import { useState } from 'preact/hooks'
import { formatCents, formatDate, monthName } from '../../format.ts'
import { useWatch } from '../../hooks.ts'
import { ReadGuard } from '../../reads/read-guard.tsx'
import { LoanChart } from './loan-chart.tsx'
import { LoanSchedule } from './loan-schedule.tsx'
import { LoanTermsForm } from './terms-form.tsx'
import { TermsHistory } from './terms-history.tsx'
import { interestToDate } from './what-if.ts'
import { WhatIfPanel } from './what-if-panel.tsx'
import '../../reports/reports.css'

/**
 * Loans: for each loan account, its schedule under the terms in force, the payoff date, the
 * interest paid to date and still to come, the balance over time, a what-if beside the current
 * plan, and the history of its terms. Every figure is the engine's (`loans.projection`,
 * `loans.simulation`), run on the device's replica in exact cents.
 */
export function LoansScreen(props: { hearth: Hearth }) {
  const { hearth } = props
  const accounts = useWatch(hearth, 'accounts.list', {})
  const [chosen, setChosen] = useState<string | null>(null)
  return (
    <section aria-labelledby="loans-title" class="loans stack">
      <header class="screen-header">
        <h1 id="loans-title">Loans</h1>
      </header>
      <ReadGuard hearth={hearth} reads={[accounts]}>
        {() => {
          const loans = accounts.data!.items.filter((a) => a.type === 'loan' && a.status === 'open')
          if (loans.length === 0)
            return (
              <p class="card muted">
                No open loan account. Add an account of the kind “loan” under Accounts, then give it its
                terms.
              </p>
            )
          const loan = loans.find((a) => a.id === chosen) ?? loans[0]!
          return (
            <>
              {loans.length > 1 && (
                <div class="report-field">
                  <label for="loan-account">Loan</label>
                  <select
                    id="loan-account"
                    value={loan.id}
                    onChange={(e) => setChosen(e.currentTarget.value)}
                  >
                    {loans.map((a) => (
                      <option key={a.id} value={a.id}>
                        {a.name}
                      </option>
                    ))}
                  </select>
                </div>
              )}
              <LoanDetail
                key={loan.id}
                hearth={hearth}
                id={loan.id}
                name={loan.name}
                currency={loan.currency}
              />
            </>
          )
        }}
      </ReadGuard>
    </section>
  )
}

/** One loan: its terms first, since a loan without them has no schedule to show. */
function LoanDetail(props: { hearth: Hearth; id: string; name: string; currency: string }) {
  const terms = useWatch(props.hearth, 'loans.termsHistory', { id: props.id })
  return (
    <ReadGuard hearth={props.hearth} reads={[terms]}>
      {() =>
        terms.data!.items.length === 0 ? (
          <>
            <p class="card" data-loan={props.id}>
              <strong>{props.name}</strong> has no terms yet: set what is owed, the rate and the term (or the
              payment) to see its schedule.
            </p>
            <LoanTermsForm key={props.id} hearth={props.hearth} id={props.id} name={props.name} first />
          </>
        ) : (
          <>
            <LoanPlanView {...props} />
            <LoanTermsForm
              key={props.id}
              hearth={props.hearth}
              id={props.id}
              name={props.name}
              first={false}
            />
            <TermsHistory items={terms.data!.items} currency={props.currency} />
          </>
        )
      }
    </ReadGuard>
  )
}

function LoanPlanView(props: { hearth: Hearth; id: string; name: string; currency: string }) {
  const { hearth, id, currency } = props
  const projection = useWatch(hearth, 'loans.projection', { id })
  const [whatIf, setWhatIf] = useState<{ date: string; balanceCents: string }[] | null>(null)
  const money = (cents: string) => formatCents(cents, currency)
  return (
    <ReadGuard hearth={hearth} reads={[projection]}>
      {() => {
        const p = projection.data!
        const month = p.asOf.slice(0, 7)
        const currentIndex = Math.max(
          0,
          p.schedule.findIndex((r) => r.date.slice(0, 7) >= month),
        )
        return (
          <>
            <section class="card stack" aria-labelledby="loan-plan-title" data-loan={id}>
              <h2 id="loan-plan-title" class="card-title">
                {props.name}
              </h2>
              <dl class="loan-figures" data-panel="plan">
                <div>
                  <dt>Monthly payment</dt>
                  <dd data-cents={p.paymentCents}>
                    {money(p.paymentCents)}
                    {BigInt(p.escrowCents) > 0n && (
                      <span class="muted small"> + {money(p.escrowCents)} escrow</span>
                    )}
                  </dd>
                </div>
                <div>
                  <dt>Paid off</dt>
                  <dd data-date={p.payoffDate}>
                    {formatDate(p.payoffDate)} ({monthName(p.payoffYearMonth)}), payment {p.paymentCount}
                  </dd>
                </div>
                <div>
                  <dt>Interest to date</dt>
                  <dd data-cents={interestToDate(p)}>{money(interestToDate(p))}</dd>
                </div>
                <div>
                  <dt>Interest still to pay</dt>
                  <dd data-cents={p.remainingInterestCents}>{money(p.remainingInterestCents)}</dd>
                </div>
                <div>
                  <dt>Rate</dt>
                  <dd>{p.terms.annualRatePercent}% a year</dd>
                </div>
              </dl>
              <LoanChart current={p.schedule} whatIf={whatIf} currency={currency} />
            </section>
            <WhatIfPanel hearth={hearth} id={id} currency={currency} projection={p} onSchedule={setWhatIf} />
            <section class="card stack" aria-labelledby="loan-schedule-title">
              <h2 id="loan-schedule-title" class="card-title">
                Schedule
              </h2>
              <LoanSchedule
                rows={p.schedule}
                currency={currency}
                currentIndex={currentIndex}
                title={`${props.name}'s schedule`}
              />
            </section>
          </>
        )
      }}
    </ReadGuard>
  )
}
