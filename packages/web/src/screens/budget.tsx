import type { Hearth } from '@hearth/client'
import { useEffect, useState } from 'preact/hooks'
import { HistoryPanel } from '../components/activity-list.tsx'
import { MoneyInput } from '../components/money-input.tsx'
import {
  addMonths,
  centsToInput,
  errorMessage,
  formatCents,
  monthName,
  parseCents,
  thisMonth,
} from '../format.ts'
import { type QueryResult, useWatch } from '../hooks.ts'
import { NoteEditor } from '../notes/note-editor.tsx'
import { ReadGuard } from '../reads/read-guard.tsx'
import { useReplicaState, withRows } from '../reads/use-replica-state.ts'
import { linkTo, navigate } from '../router.ts'
import { serverCall } from '../server-calls.ts'
import { useServerRead } from '../server-read.ts'
import { serverUrl } from '../session.ts'
import { monthSummaryLines } from './month-summary-lines.ts'
import { isSetUp } from './onboarding/set-up.ts'

type BudgetMonth = QueryResult<'budgets.get'>
type BudgetCategory = BudgetMonth['groups'][number]['categories'][number]

/** Each state's words and mark, so colour is never the only signal. */
const STATES: Record<BudgetCategory['state'], { label: string; mark: string }> = {
  overspent: { label: 'Overspent', mark: '!' },
  underfunded: { label: 'Underfunded', mark: '◔' },
  funded: { label: 'Funded', mark: '✓' },
  zero: { label: 'Empty', mark: '○' },
  income: { label: 'Income', mark: '+' },
}

/**
 * A month of the envelope budget: Ready to Assign, every group and category with assigned,
 * activity and available, assignment in place, moves between categories, goals with progress.
 * While the replica opens (`hearth` null) it shows the month as it was last shown, and an
 * assignment made meanwhile is made once the replica is open.
 */
export function BudgetScreen(props: {
  hearth: Hearth | null
  opening: Promise<Hearth>
  month: string | null
  householdId: string
}) {
  const { hearth, opening } = props
  // A change made while the replica opens (or reopened empty) waits until it holds the rows the
  // change is made on.
  const withHearth = <T,>(work: (h: Hearth) => Promise<T>) =>
    (hearth ? withRows(hearth) : opening.then(withRows)).then(work)
  const month = props.month && /^\d{4}-\d{2}$/.test(props.month) ? props.month : thisMonth()
  const replica = useReplicaState(hearth)
  const watched = useWatch(hearth, 'budgets.get', { month })
  // A device with nothing to show yet (no replica rows, nothing kept from last time) shows the
  // month as the server answers it while its first snapshot loads, so a new device's budget is
  // there in a moment rather than after the whole household; an assignment made meanwhile is
  // made on the replica once its rows are in.
  const waiting = watched.data === undefined && watched.error === undefined
  const firstRows = waiting && (replica === null || replica.version === null)
  const server = useServerRead<BudgetMonth | undefined>(
    () =>
      firstRows
        ? serverCall<BudgetMonth>(
            { serverUrl: serverUrl() },
            'GET',
            `/households/${props.householdId}/budgets/${month}`,
          )
        : Promise.resolve(undefined),
    [firstRows, month, props.householdId],
  )
  const fromServer = firstRows && server.data !== undefined
  const budget = fromServer ? { data: server.data, error: undefined, pending: false } : watched
  const { data } = budget
  const accounts = useWatch(hearth, 'accounts.list', { status: 'open' }).data
  const empty = data?.groups.length === 0 && accounts?.items.length === 0
  // A new household's first person is led through setting it up, once; only a replica that has its
  // rows can say the household is empty.
  useEffect(() => {
    if (hearth && empty && hearth.sync.status.version !== null && !isSetUp(hearth.householdId)) {
      navigate('/welcome', true)
    }
  }, [hearth, empty])
  const [selected, setSelected] = useState<string | null>(null)
  const [problem, setProblem] = useState<string | null>(null)
  const go = (m: string) => navigate(`/budget/${m}`)
  const act = (work: Promise<unknown>) =>
    work.then(
      () => setProblem(null),
      (e) => setProblem(errorMessage(e)),
    )

  const category = data?.groups.flatMap((g) => g.categories).find((c) => c.id === selected) ?? null
  const rta = data ? BigInt(data.readyToAssignCents) : 0n

  return (
    <section aria-labelledby="budget-title" class="budget">
      <header class="screen-header">
        <div class="month-picker">
          <button
            type="button"
            class="ghost"
            aria-label="Previous month"
            onClick={() => go(addMonths(month, -1))}
          >
            ‹
          </button>
          <h1 id="budget-title">{monthName(month)}</h1>
          <button type="button" class="ghost" aria-label="Next month" onClick={() => go(addMonths(month, 1))}>
            ›
          </button>
          <label class="visually-hidden-label">
            <span class="visually-hidden">Go to month</span>
            <input
              type="month"
              value={month}
              onChange={(e) => e.currentTarget.value && go(e.currentTarget.value)}
            />
          </label>
          {month !== thisMonth() && (
            <button type="button" class="small" onClick={() => go(thisMonth())}>
              Today
            </button>
          )}
        </div>
        {data && (
          <div
            class={`rta ${rta > 0n ? 'rta-positive' : rta < 0n ? 'rta-negative' : 'rta-zero'}`}
            data-testid="ready-to-assign"
          >
            <span class="rta-amount">{formatCents(data.readyToAssignCents, data.currency)}</span>
            <span class="rta-label">
              {rta < 0n
                ? 'Assigned more than you have'
                : rta === 0n
                  ? 'All money assigned'
                  : 'Ready to Assign'}
            </span>
          </div>
        )}
      </header>
      {problem && (
        <p role="alert" class="error">
          {problem}
        </p>
      )}
      {fromServer && (
        <p class="muted" role="status" data-testid="budget-from-server">
          Shown from the server while this device gets its copy of the household
          {replica?.loadedRows ? ` (${replica.loadedRows.toLocaleString('en-US')} rows loaded)` : ''}; a
          change you make now is made on that copy once it is here.
        </p>
      )}
      {/* Usable at once: a change made while the month comes from the server waits until the
          replica holds the rows it is made on (`withHearth`), as one made while it opens does. */}
      <fieldset class="plain-fieldset">
        <ReadGuard hearth={fromServer ? null : hearth} reads={[budget]}>
          {() =>
            data?.groups.length === 0 ? (
              <div class="card stack" data-testid="budget-empty">
                <h2 class="card-title">No categories yet</h2>
                <p>
                  A budget gives your money jobs through categories. Create a starter set, your own, or both,
                  then assign what your accounts hold.
                </p>
                <a class="button primary" {...linkTo('/welcome')}>
                  Set up your household
                </a>
              </div>
            ) : (
              data && (
                <div class="budget-layout">
                  <div class="card budget-card">
                    <div class="budget-toolbar">
                      <span class="muted">
                        Goals still want {formatCents(data.underfundedCents, data.currency)} this month.
                      </span>
                      <button
                        type="button"
                        class="small"
                        onClick={() =>
                          act(withHearth((h) => h.mutate.budgets.autoAssignFromGoals({ month })))
                        }
                        disabled={BigInt(data.underfundedCents) === 0n}
                      >
                        Assign to goals
                      </button>
                    </div>
                    <table class="table budget-table">
                      <thead>
                        <tr>
                          <th scope="col">Category</th>
                          <th scope="col" class="num">
                            Assigned
                          </th>
                          <th scope="col" class="num">
                            Activity
                          </th>
                          <th scope="col" class="num">
                            Available
                          </th>
                        </tr>
                      </thead>
                      {data.groups
                        .filter((g) => !g.hidden || g.categories.length > 0)
                        .map((group) => (
                          <tbody key={group.id} class="budget-group">
                            <tr class="group-row">
                              <th scope="rowgroup">{group.name}</th>
                              <td class="num">
                                {group.isIncome ? '' : formatCents(group.assignedCents, data.currency)}
                              </td>
                              <td class="num">{formatCents(group.activityCents, data.currency)}</td>
                              <td class="num">
                                {group.isIncome ? '' : formatCents(group.availableCents, data.currency)}
                              </td>
                            </tr>
                            {group.categories.map((c) => (
                              <tr
                                key={c.id}
                                class={`category-row ${selected === c.id ? 'selected' : ''}`}
                                data-category={c.name}
                              >
                                <th scope="row" class="category-cell">
                                  <button
                                    type="button"
                                    class="category-name"
                                    aria-expanded={selected === c.id}
                                    onClick={() => setSelected(selected === c.id ? null : c.id)}
                                  >
                                    {c.name}
                                  </button>
                                  {c.goal && <GoalBar goal={c.goal} currency={data.currency} />}
                                </th>
                                <td class="num">
                                  {group.isIncome ? (
                                    ''
                                  ) : (
                                    <MoneyInput
                                      name="assigned"
                                      cents={c.assignedCents}
                                      label={`Assigned to ${c.name}`}
                                      onSave={(cents) =>
                                        act(
                                          withHearth((h) =>
                                            h.mutate.budgets.assign({
                                              month,
                                              categoryId: c.id,
                                              assignedCents: cents.toString(),
                                            }),
                                          ),
                                        )
                                      }
                                    />
                                  )}
                                </td>
                                <td class="num">{formatCents(c.activityCents, data.currency)}</td>
                                <td class="num">
                                  <Available category={c} currency={data.currency} />
                                </td>
                              </tr>
                            ))}
                          </tbody>
                        ))}
                    </table>
                  </div>
                  <aside class="budget-side">
                    {category && hearth ? (
                      <CategoryPanel
                        key={category.id}
                        hearth={hearth}
                        month={month}
                        category={category}
                        categories={data.groups.filter((g) => !g.isIncome).flatMap((g) => g.categories)}
                        currency={data.currency}
                        onClose={() => setSelected(null)}
                      />
                    ) : (
                      <MonthSummary data={data} />
                    )}
                    {hearth && <NoteEditor hearth={hearth} target={{ kind: 'month', id: month }} />}
                  </aside>
                </div>
              )
            )
          }
        </ReadGuard>
      </fieldset>
    </section>
  )
}

function Available(props: { category: BudgetCategory; currency: string }) {
  const state = STATES[props.category.state]
  return (
    <span class={`available state-${props.category.state}`} data-state={props.category.state}>
      <span class="state-mark" aria-hidden="true">
        {state.mark}
      </span>
      {formatCents(props.category.availableCents, props.currency)}
      <span class="visually-hidden"> ({state.label})</span>
    </span>
  )
}

function GoalBar(props: { goal: NonNullable<BudgetCategory['goal']>; currency: string }) {
  const pct = Math.round(props.goal.progressBasisPoints / 100)
  return (
    <div class="goal">
      <progress max={10000} value={props.goal.progressBasisPoints} aria-label="Goal progress">
        {pct}%
      </progress>
      <span class="goal-text">
        {pct}% of {formatCents(props.goal.neededCents, props.currency)}
        {BigInt(props.goal.underfundedCents) > 0n &&
          ` · ${formatCents(props.goal.underfundedCents, props.currency)} to go`}
      </span>
    </div>
  )
}

/** The month's sum to Ready to Assign, with one sign rule (`monthSummaryLines`). */
function MonthSummary(props: { data: BudgetMonth }) {
  const { data } = props
  const lines = monthSummaryLines(data)
  return (
    <section class="card" aria-labelledby="summary-title">
      <h2 id="summary-title" class="card-title">
        This month
      </h2>
      <dl class="summary month-summary">
        {lines.map((line) => (
          <div key={line.label} data-op={line.op}>
            <dt>
              <span class="op" aria-hidden="true">
                {OPS[line.op]}
              </span>
              {line.label}
              <span class="visually-hidden">{OP_WORDS[line.op]}</span>
            </dt>
            <dd class="amount">{formatCents(line.cents, data.currency)}</dd>
          </div>
        ))}
        <div class="summary-total">
          <dt>
            <span class="op" aria-hidden="true">
              =
            </span>
            Ready to Assign
          </dt>
          <dd class="amount">{formatCents(data.readyToAssignCents, data.currency)}</dd>
        </div>
      </dl>
    </section>
  )
}

const OPS = { start: '', plus: '+', minus: '−' } as const
const OP_WORDS = {
  start: '',
  plus: ' (adds to Ready to Assign)',
  minus: ' (taken from Ready to Assign)',
} as const

function CategoryPanel(props: {
  hearth: Hearth
  month: string
  category: BudgetCategory
  categories: BudgetCategory[]
  currency: string
  onClose: () => void
}) {
  const { hearth, category: c, month } = props
  const [moveTo, setMoveTo] = useState('')
  const [moveAmount, setMoveAmount] = useState('')
  const [goalType, setGoalType] = useState<'none' | 'monthly' | 'targetBalance'>(
    c.goal?.type === 'monthly' ? 'monthly' : c.goal?.type === 'targetBalance' ? 'targetBalance' : 'none',
  )
  const [goalAmount, setGoalAmount] = useState(c.goal ? centsToInput(c.goal.neededCents) : '')
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null)
  const run = (work: Promise<unknown>, ok: string) =>
    work.then(
      () => setMessage({ kind: 'ok', text: ok }),
      (e) => setMessage({ kind: 'error', text: errorMessage(e) }),
    )

  const move = (event: Event) => {
    event.preventDefault()
    const cents = parseCents(moveAmount)
    if (cents === null || cents <= 0n || !moveTo) {
      setMessage({ kind: 'error', text: 'Choose a category and an amount above zero.' })
      return
    }
    const [from, to] = cents > 0n ? [c.id, moveTo] : [moveTo, c.id]
    void run(
      hearth.mutate.budgets.move({
        month,
        fromCategoryId: from,
        toCategoryId: to,
        amountCents: cents.toString(),
      }),
      'Moved.',
    ).then(() => setMoveAmount(''))
  }
  const saveGoal = (event: Event) => {
    event.preventDefault()
    if (goalType === 'none') {
      void run(hearth.mutate.categories.update({ id: c.id, goal: null }), 'Goal removed.')
      return
    }
    const cents = parseCents(goalAmount)
    if (cents === null || cents <= 0n) {
      setMessage({ kind: 'error', text: 'A goal needs an amount above zero.' })
      return
    }
    const goal =
      goalType === 'monthly'
        ? { type: 'monthly' as const, amountCents: cents.toString() }
        : { type: 'targetBalance' as const, targetCents: cents.toString() }
    void run(hearth.mutate.categories.update({ id: c.id, goal }), 'Goal saved.')
  }

  return (
    <section class="card category-panel" aria-labelledby="category-title">
      <header class="panel-header">
        <h2 id="category-title">{c.name}</h2>
        <button type="button" class="ghost small" onClick={props.onClose} aria-label="Close category details">
          ✕
        </button>
      </header>
      <dl class="summary">
        <div>
          <dt>Carried in</dt>
          <dd class="amount">{formatCents(c.carriedInCents, props.currency)}</dd>
        </div>
        <div>
          <dt>Assigned</dt>
          <dd class="amount">{formatCents(c.assignedCents, props.currency)}</dd>
        </div>
        <div>
          <dt>Activity</dt>
          <dd class="amount">{formatCents(c.activityCents, props.currency)}</dd>
        </div>
        <div class="summary-total">
          <dt>Available</dt>
          <dd>
            <Available category={c} currency={props.currency} />
          </dd>
        </div>
      </dl>
      {c.goal && <GoalBar goal={c.goal} currency={props.currency} />}

      <form class="stack panel-form" onSubmit={move} aria-label="Move money">
        <h3>Move money</h3>
        <label>
          Amount to move out of {c.name}
          <input
            name="moveAmount"
            inputMode="decimal"
            value={moveAmount}
            onInput={(e) => setMoveAmount(e.currentTarget.value)}
          />
        </label>
        <label>
          To
          <select
            name="moveTo"
            aria-label="Move to"
            value={moveTo}
            onChange={(e) => setMoveTo(e.currentTarget.value)}
          >
            <option value="">Choose a category</option>
            {props.categories
              .filter((o) => o.id !== c.id)
              .map((o) => (
                <option key={o.id} value={o.id}>
                  {o.name} ({formatCents(o.availableCents, props.currency)})
                </option>
              ))}
          </select>
        </label>
        <button type="submit">Move</button>
      </form>

      <form class="stack panel-form" onSubmit={saveGoal} aria-label="Goal">
        <h3>Goal</h3>
        <label>
          Kind
          <select
            name="goalType"
            value={goalType}
            onChange={(e) => setGoalType(e.currentTarget.value as typeof goalType)}
          >
            <option value="none">No goal</option>
            <option value="monthly">Assign every month</option>
            <option value="targetBalance">Reach a balance</option>
          </select>
        </label>
        {goalType !== 'none' && (
          <label>
            Amount
            <input
              name="goalAmount"
              inputMode="decimal"
              value={goalAmount}
              onInput={(e) => setGoalAmount(e.currentTarget.value)}
            />
          </label>
        )}
        <button type="submit">Save goal</button>
      </form>
      {message && (
        <p
          role={message.kind === 'error' ? 'alert' : 'status'}
          class={message.kind === 'error' ? 'error' : 'ok'}
        >
          {message.text}
        </p>
      )}
      <NoteEditor hearth={hearth} target={{ kind: 'category', id: c.id }} />
      <HistoryPanel
        filter={{ categoryId: c.id, month: props.month }}
        title={`History of ${c.name} in ${monthName(props.month)}`}
      />
    </section>
  )
}
