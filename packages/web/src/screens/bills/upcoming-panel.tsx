import { useState } from 'preact/hooks'
import { addMonths, formatCents, formatDate, monthName } from '../../format.ts'
import type { QueryResult } from '../../hooks.ts'
import { LOW_BALANCE_AHEAD_DAYS, type LowBalanceDay, lowBalanceDays } from './low-balance.ts'
import { byDate, monthWeeks } from './month-calendar.ts'

type Upcoming = QueryResult<'recurrences.upcoming'>
type Item = Upcoming['items'][number]
type Account = QueryResult<'accounts.list'>['items'][number]

const KIND_WORDS: Record<Item['kind'], string> = {
  occurrence: 'Scheduled',
  pendingRecurring: 'Booked, pending',
  futureTransaction: 'Dated ahead',
  cardPaymentDue: 'Card payment due',
}
const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']

/**
 * What is coming: each occurrence with the paying account's balance once it has happened, as a
 * list or a month calendar, and the engine's low-balance check (a cash account forecast below
 * zero within 14 days) above both.
 */
export function UpcomingPanel(props: {
  upcoming: Upcoming
  accounts: ReadonlyMap<string, Account>
  names: ReadonlyMap<string, string>
}) {
  const { upcoming, accounts } = props
  const [view, setView] = useState<'list' | 'calendar'>('list')
  const [month, setMonth] = useState(upcoming.fromDate.slice(0, 7))
  const cash = new Set([...accounts.values()].filter((a) => a.type === 'cash').map((a) => a.id))
  const low = lowBalanceDays(upcoming.items, cash, upcoming.fromDate)
  const currency = (accountId: string) => accounts.get(accountId)?.currency ?? 'USD'
  const name = (item: Item) =>
    item.name ??
    (item.payeeId ? props.names.get(item.payeeId) : undefined) ??
    KIND_WORDS[item.kind].toLowerCase()

  return (
    <section class="card stack" aria-labelledby="upcoming-title" data-panel="upcoming">
      <div class="report-head">
        <h2 id="upcoming-title" class="card-title">
          Upcoming, {formatDate(upcoming.fromDate)} to {formatDate(upcoming.toDate)}
        </h2>
        <fieldset class="report-by">
          <legend class="visually-hidden">Show upcoming as</legend>
          {(['list', 'calendar'] as const).map((v) => (
            <label key={v} class={view === v ? 'on' : ''}>
              <input
                class="visually-hidden"
                type="radio"
                name="upcoming-view"
                value={v}
                checked={view === v}
                onChange={() => setView(v)}
              />
              {v === 'list' ? 'List' : 'Calendar'}
            </label>
          ))}
        </fieldset>
      </div>
      <LowBalanceNotice low={low} accounts={accounts} />
      {upcoming.items.length === 0 ? (
        <p class="muted">Nothing is scheduled or dated ahead in this window.</p>
      ) : view === 'list' ? (
        <div style={{ overflowX: 'auto' }}>
          <table class="table" data-table="upcoming">
            <caption class="visually-hidden">
              Upcoming occurrences with each paying account’s balance after it
            </caption>
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col">What</th>
                <th scope="col">Account</th>
                <th scope="col" class="num">
                  Amount
                </th>
                <th scope="col" class="num">
                  Balance after
                </th>
              </tr>
            </thead>
            <tbody>
              {upcoming.items.map((item, i) => {
                const balance = BigInt(item.projectedBalanceCents)
                return (
                  <tr
                    key={`${item.date}-${i}`}
                    data-kind={item.kind}
                    data-recurrence={item.recurrenceId ?? undefined}
                  >
                    <td>{formatDate(item.date)}</td>
                    <th scope="row">
                      {name(item)} <span class="muted small">{KIND_WORDS[item.kind]}</span>
                    </th>
                    <td>{accounts.get(item.accountId)?.name ?? 'Unknown account'}</td>
                    <td class="num" data-cents={item.amountCents}>
                      {formatCents(item.amountCents, currency(item.accountId))}
                    </td>
                    <td
                      class={`num ${balance < 0n ? 'negative' : ''}`}
                      data-cents={item.projectedBalanceCents}
                    >
                      {formatCents(item.projectedBalanceCents, currency(item.accountId))}
                      {balance < 0n && <span class="visually-hidden"> (below zero)</span>}
                    </td>
                  </tr>
                )
              })}
            </tbody>
          </table>
        </div>
      ) : (
        <MonthCalendar
          month={month}
          setMonth={setMonth}
          upcoming={upcoming}
          name={name}
          currency={currency}
          accounts={accounts}
        />
      )}
    </section>
  )
}

function LowBalanceNotice(props: { low: LowBalanceDay[]; accounts: ReadonlyMap<string, Account> }) {
  if (props.low.length === 0) {
    return (
      <p class="muted small" data-low-balance="none">
        No cash account is forecast below zero in the next {LOW_BALANCE_AHEAD_DAYS} days.
      </p>
    )
  }
  return (
    <div role="alert" class="refused" data-low-balance="ahead">
      {props.low.map((l) => {
        const a = props.accounts.get(l.accountId)
        return (
          <p key={l.accountId} data-account={l.accountId} data-date={l.date}>
            <strong>{a?.name ?? 'An account'}</strong> is forecast below zero on {formatDate(l.date)}:{' '}
            {formatCents(l.projectedBalanceCents, a?.currency ?? 'USD')} at the end of that day.
          </p>
        )
      })}
    </div>
  )
}

/** The month's days as a grid; each day lists its items and where each paying account ends the day. */
function MonthCalendar(props: {
  month: string
  setMonth: (month: string) => void
  upcoming: Upcoming
  name: (item: Item) => string
  currency: (accountId: string) => string
  accounts: ReadonlyMap<string, Account>
}) {
  const { month, upcoming } = props
  const days = byDate(upcoming.items)
  const first = upcoming.fromDate.slice(0, 7)
  const last = upcoming.toDate.slice(0, 7)
  return (
    <div class="stack">
      <div class="row">
        <button
          type="button"
          class="ghost"
          disabled={month <= first}
          onClick={() => props.setMonth(addMonths(month, -1))}
        >
          Previous month
        </button>
        <h3 aria-live="polite">{monthName(month)}</h3>
        <button
          type="button"
          class="ghost"
          disabled={month >= last}
          onClick={() => props.setMonth(addMonths(month, 1))}
        >
          Next month
        </button>
      </div>
      <div style={{ overflowX: 'auto' }}>
        <table class="table bills-calendar" data-table="calendar">
          <caption class="visually-hidden">
            {monthName(month)}: what falls due each day, and each paying account’s balance at the end of it
          </caption>
          <thead>
            <tr>
              {WEEKDAYS.map((d) => (
                <th key={d} scope="col">
                  {d}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {monthWeeks(month).map((week) => (
              <tr key={week.find(Boolean)}>
                {week.map((date, i) => {
                  const items = date ? (days.get(date) ?? []) : []
                  // Each paying account ends the day at its last item's balance.
                  const ends = new Map(items.map((item) => [item.accountId, item.projectedBalanceCents]))
                  return (
                    <td key={date ?? `blank-${i}`} data-date={date ?? undefined}>
                      {date && <span class="muted small">{Number(date.slice(8))}</span>}
                      {items.map((item, j) => (
                        <div key={j} class="small">
                          {props.name(item)} {formatCents(item.amountCents, props.currency(item.accountId))}
                        </div>
                      ))}
                      {[...ends].map(([accountId, cents]) => (
                        <div
                          key={accountId}
                          class={`small ${BigInt(cents) < 0n ? 'negative' : 'muted'}`}
                          data-balance={cents}
                        >
                          {props.accounts.get(accountId)?.name}:{' '}
                          {formatCents(cents, props.currency(accountId))}
                        </div>
                      ))}
                    </td>
                  )
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  )
}
