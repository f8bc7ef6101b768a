import type { Hearth } from '@hearth/client'
import { useState } from 'preact/hooks'
import { centsToInput, formatCents, formatDate, parseCents } from '../../format.ts'
import type { QueryResult } from '../../hooks.ts'
import { frequencyWords } from './frequency-words.ts'

type Recurrence = QueryResult<'recurrences.list'>['items'][number]
type Account = QueryResult<'accounts.list'>['items'][number]

/** The household's bills and subscriptions: each one paused or resumed, booked now, or edited in place. */
export function RecurrenceList(props: {
  hearth: Hearth
  recurrences: Recurrence[]
  accounts: ReadonlyMap<string, Account>
  categories: { id: string; name: string }[]
  act: (work: Promise<unknown>, done: string) => void
}) {
  const { hearth, act } = props
  const [editing, setEditing] = useState<string | null>(null)
  const currency = (r: Recurrence) => props.accounts.get(r.accountId)?.currency ?? r.currency
  return (
    <section class="card stack" aria-labelledby="recurrences-title" data-panel="recurrences">
      <h2 id="recurrences-title" class="card-title">
        Bills and subscriptions
      </h2>
      {props.recurrences.length === 0 ? (
        <p class="muted">Nothing is tracked yet: track a detected charge above.</p>
      ) : (
        <ul class="plain-list stack">
          {props.recurrences.map((r) => (
            <li key={r.id} data-recurrence={r.id} data-status={r.status}>
              <div class="row">
                <span class="grow">
                  <strong>{r.name}</strong>{' '}
                  <span data-cents={r.amountCents}>{formatCents(r.amountCents, currency(r))}</span>{' '}
                  {frequencyWords(r)}, from {props.accounts.get(r.accountId)?.name ?? 'an account'}.{' '}
                  <span class="muted small">
                    {r.status === 'paused'
                      ? 'Paused.'
                      : r.nextRunDate
                        ? `Next ${formatDate(r.nextRunDate)}.`
                        : 'Ended.'}
                    {r.origin === 'detected' ? ' Detected in your history.' : ''}
                  </span>
                </span>
                {r.status === 'paused' ? (
                  <button
                    type="button"
                    class="small"
                    aria-label={`Resume ${r.name}`}
                    onClick={() => act(hearth.mutate.recurrences.resume({ id: r.id }), `${r.name} resumed.`)}
                  >
                    Resume
                  </button>
                ) : (
                  <button
                    type="button"
                    class="small"
                    aria-label={`Pause ${r.name}`}
                    onClick={() => act(hearth.mutate.recurrences.pause({ id: r.id }), `${r.name} paused.`)}
                  >
                    Pause
                  </button>
                )}
                <button
                  type="button"
                  class="small"
                  aria-label={`Book now: ${r.name}`}
                  disabled={r.status === 'paused' || !r.nextRunDate}
                  onClick={() =>
                    act(hearth.mutate.recurrences.materializeNow({ id: r.id }), `${r.name} booked.`)
                  }
                >
                  Book now
                </button>
                <button
                  type="button"
                  class="small ghost"
                  aria-expanded={editing === r.id}
                  aria-label={`Edit ${r.name}`}
                  onClick={() => setEditing(editing === r.id ? null : r.id)}
                >
                  Edit
                </button>
              </div>
              {editing === r.id && (
                <RecurrenceEditor
                  recurrence={r}
                  categories={props.categories}
                  onSave={(changes) => {
                    act(hearth.mutate.recurrences.update({ id: r.id, ...changes }), `${r.name} saved.`)
                    setEditing(null)
                  }}
                />
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

/** Name, amount, category and day of month of one recurrence; the rest of its schedule stays. */
function RecurrenceEditor(props: {
  recurrence: Recurrence
  categories: { id: string; name: string }[]
  onSave: (changes: {
    name: string
    amountCents: string
    categoryId: string | null
    dayOfMonth?: number
  }) => void
}) {
  const r = props.recurrence
  const [name, setName] = useState(r.name)
  const [amount, setAmount] = useState(centsToInput(r.amountCents))
  const [categoryId, setCategoryId] = useState(r.categoryId ?? '')
  const [day, setDay] = useState(r.dayOfMonth ? String(r.dayOfMonth) : '')
  const [error, setError] = useState<string | null>(null)
  const monthly = r.frequency === 'monthly' || r.frequency === 'yearly'
  const id = `edit-${r.id}`
  return (
    <form
      class="panel-form stack"
      aria-label={`Edit ${r.name}`}
      onSubmit={(e) => {
        e.preventDefault()
        const cents = parseCents(amount)
        if (cents === null || cents === 0n)
          return setError('The amount is a sum such as -14.99 (money out is negative).')
        const dayOfMonth = monthly && day ? Number(day) : undefined
        if (
          dayOfMonth !== undefined &&
          !(Number.isInteger(dayOfMonth) && dayOfMonth >= 1 && dayOfMonth <= 31)
        )
          return setError('The day of the month is 1 to 31.')
        props.onSave({
          name: name.trim() || r.name,
          amountCents: cents.toString(),
          categoryId: categoryId || null,
          ...(dayOfMonth !== undefined ? { dayOfMonth } : {}),
        })
      }}
    >
      <div class="row">
        <label for={`${id}-name`}>Name</label>
        <input id={`${id}-name`} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <label for={`${id}-amount`}>Amount</label>
        <input
          id={`${id}-amount`}
          inputMode="decimal"
          value={amount}
          onInput={(e) => setAmount(e.currentTarget.value)}
        />
        <label for={`${id}-category`}>Category</label>
        <select
          id={`${id}-category`}
          value={categoryId}
          onChange={(e) => setCategoryId(e.currentTarget.value)}
        >
          <option value="">No category</option>
          {props.categories.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
            </option>
          ))}
        </select>
        {monthly && (
          <>
            <label for={`${id}-day`}>Day of month</label>
            <input
              id={`${id}-day`}
              type="number"
              min={1}
              max={31}
              value={day}
              onInput={(e) => setDay(e.currentTarget.value)}
            />
          </>
        )}
        <button type="submit" class="primary">
          Save
        </button>
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  )
}
