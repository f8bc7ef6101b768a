import { type Hearth, ulid } from '@hearth/client'
import { useState } from 'preact/hooks'
import { ON_BUDGET_WORDS } from '../../components/new-account-form.tsx'
import { errorMessage, formatCents, formatDate, parseCents, today } from '../../format.ts'
import { type QueryResult, useWatch } from '../../hooks.ts'
import { ReadGuard } from '../../reads/read-guard.tsx'

type Account = QueryResult<'accounts.list'>['items'][number]

/**
 * One account managed in place: rename, close or reopen, reconcile against a statement (the
 * engine's reconcile: a gap is booked as an adjustment and cleared rows lock), whether it is on
 * budget and what changing that means, and its balance over the last 30 days.
 */
export function AccountPanel(props: { hearth: Hearth; account: Account }) {
  const { hearth, account: a } = props
  const [name, setName] = useState(a.name)
  const [statement, setStatement] = useState('')
  const [statementDate, setStatementDate] = useState(today)
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null)
  const run = (work: Promise<unknown>, ok: string) =>
    work.then(
      () => setMessage({ kind: 'ok', text: ok }),
      (e) => setMessage({ kind: 'error', text: errorMessage(e) }),
    )
  const reconcile = (event: Event) => {
    event.preventDefault()
    const cents = parseCents(statement)
    if (cents === null)
      return setMessage({ kind: 'error', text: 'The statement balance is an amount such as 1250.00.' })
    void hearth.mutate.accounts
      .reconcile({ id: a.id, statementBalanceCents: cents.toString(), statementDate, adjustmentId: ulid() })
      .then(
        (r) =>
          setMessage({
            kind: 'ok',
            text: r.adjustment
              ? `Reconciled ${r.reconciledCount} rows, with an adjustment of ${formatCents(r.adjustment.amountCents, a.currency)} for the gap.`
              : `Reconciled ${r.reconciledCount} rows; the cleared balance matched the statement.`,
          }),
        (e) => setMessage({ kind: 'error', text: errorMessage(e) }),
      )
  }
  const pairs = { cash: 'credit', credit: 'cash', loan: 'tracking', tracking: 'loan' } as const
  const other = pairs[a.type as keyof typeof pairs]

  return (
    <section class="account-panel stack" aria-label={`Manage ${a.name}`}>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault()
          void run(hearth.mutate.accounts.update({ id: a.id, name: name.trim() }), 'Renamed.')
        }}
      >
        <label class="grow">
          Name
          <input name="accountName" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <button type="submit">Rename</button>
      </form>

      <p class="small-print">
        <strong>{a.onBudget ? 'On budget.' : 'Off budget.'}</strong> {ON_BUDGET_WORDS} Hearth keeps an account
        on or off budget by its kind: a {a.type} account can become a {other} account
        {a.onBudget ? ' (still on budget)' : ' (still off budget)'}, but moving it {a.onBudget ? 'off' : 'on'}{' '}
        budget would change past months’ budgets, so open a new {a.onBudget ? 'off-budget' : 'on-budget'}{' '}
        account, transfer the balance to it, and close this one.
      </p>
      {other && a.status === 'open' && (
        <button
          type="button"
          class="small"
          onClick={() =>
            run(hearth.mutate.accounts.convert({ id: a.id, type: other }), `It is a ${other} account now.`)
          }
        >
          Make it a {other} account
        </button>
      )}

      {a.status === 'open' ? (
        <form class="row" onSubmit={reconcile} aria-label={`Reconcile ${a.name}`}>
          <label>
            Statement balance
            <input
              class="amount-field"
              name="statementBalance"
              inputMode="decimal"
              value={statement}
              onInput={(e) => setStatement(e.currentTarget.value)}
            />
          </label>
          <label>
            Statement date
            <input
              type="date"
              name="statementDate"
              value={statementDate}
              onInput={(e) => setStatementDate(e.currentTarget.value)}
            />
          </label>
          <button type="submit">Reconcile</button>
        </form>
      ) : null}

      <div class="row">
        {a.status === 'open' ? (
          <button
            type="button"
            class="small danger ghost"
            onClick={() =>
              confirm(
                `Close ${a.name}? Its remaining balance is booked as an adjustment so it holds zero.`,
              ) && run(hearth.mutate.accounts.close({ id: a.id, adjustmentId: ulid() }), 'Closed.')
            }
          >
            Close the account
          </button>
        ) : (
          <button
            type="button"
            class="small"
            onClick={() => run(hearth.mutate.accounts.reopen({ id: a.id }), 'Reopened.')}
          >
            Reopen the account
          </button>
        )}
      </div>
      {message && (
        <p
          role={message.kind === 'error' ? 'alert' : 'status'}
          class={message.kind === 'error' ? 'error' : 'ok'}
        >
          {message.text}
        </p>
      )}
      <BalanceHistory hearth={hearth} account={a} />
    </section>
  )
}

/** The end-of-day balance over the last 30 days, the days it changed. */
function BalanceHistory(props: { hearth: Hearth; account: Account }) {
  const history = useWatch(props.hearth, 'accounts.balanceHistory', { id: props.account.id })
  return (
    <details class="balance-history">
      <summary>Balance over the last 30 days</summary>
      <ReadGuard hearth={props.hearth} reads={[history]}>
        {() => {
          const points = history.data!.points.filter(
            (p, i, all) => i === 0 || p.balanceCents !== all[i - 1]!.balanceCents,
          )
          return (
            <table class="table" aria-label={`Balance history of ${props.account.name}`}>
              <thead>
                <tr>
                  <th scope="col">Day</th>
                  <th scope="col" class="num">
                    Balance
                  </th>
                  <th scope="col" class="num">
                    Cleared
                  </th>
                </tr>
              </thead>
              <tbody>
                {points.map((p) => (
                  <tr key={p.date}>
                    <td>
                      <time dateTime={p.date}>{formatDate(p.date)}</time>
                    </td>
                    <td class="num">{formatCents(p.balanceCents, props.account.currency)}</td>
                    <td class="num">{formatCents(p.clearedBalanceCents, props.account.currency)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }}
      </ReadGuard>
    </details>
  )
}
