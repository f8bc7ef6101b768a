import { type Hearth, ulid } from '@hearth/client'
import { useState } from 'preact/hooks'
import { errorMessage, parseCents, today } from '../format.ts'

/** The kinds of account a household opens, each on or off budget, in their words. */
export const ACCOUNT_KINDS = [
  { type: 'cash', label: 'Checking, savings or cash', onBudget: true },
  { type: 'credit', label: 'Credit card', onBudget: true },
  { type: 'loan', label: 'Loan or mortgage', onBudget: false },
  { type: 'tracking', label: 'Investments or property', onBudget: false },
] as const

/** What on and off budget mean, where a person chooses. */
export const ON_BUDGET_WORDS =
  'On budget: its money is yours to give a job in the budget, and what you spend from it is budgeted. ' +
  'Off budget: its balance counts in your net worth only, and money moved into it leaves the budget.'

/**
 * Opens an account: name, kind (on or off budget), balance today and its date. The new row's id is
 * made once per account, so pressing Add twice or a retry never opens it twice.
 */
export function NewAccountForm(props: { hearth: Hearth; onCreated?: (id: string) => void }) {
  const [id, setId] = useState(ulid)
  const [name, setName] = useState('')
  const [type, setType] = useState<(typeof ACCOUNT_KINDS)[number]['type']>('cash')
  const [balance, setBalance] = useState('')
  const [date, setDate] = useState(today)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const kind = ACCOUNT_KINDS.find((k) => k.type === type)!

  const submit = async (event: Event) => {
    event.preventDefault()
    if (busy) return
    const cents = balance.trim() ? parseCents(balance) : 0n
    if (!name.trim()) return setError('Give the account a name.')
    if (cents === null) return setError('The balance is an amount such as 1250.00 or -300.00.')
    setBusy(true)
    try {
      await props.hearth.mutate.accounts.create({
        id,
        name: name.trim(),
        type,
        ...(cents !== 0n && { openingBalanceCents: cents.toString(), openingBalanceDate: date }),
      })
      setError(null)
      setName('')
      setBalance('')
      setId(ulid())
      props.onCreated?.(id)
    } catch (e) {
      setError(errorMessage(e))
    } finally {
      setBusy(false)
    }
  }

  return (
    <form class="card stack new-account" onSubmit={submit} aria-label="Add an account">
      <div class="editor-fields">
        <label class="grow">
          Account name
          <input name="accountName" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Kind
          <select
            name="accountKind"
            value={type}
            onChange={(e) => setType(e.currentTarget.value as typeof type)}
          >
            {ACCOUNT_KINDS.map((k) => (
              <option key={k.type} value={k.type}>
                {k.label} ({k.onBudget ? 'on budget' : 'off budget'})
              </option>
            ))}
          </select>
        </label>
        <label>
          Balance today
          <input
            class="amount-field"
            name="openingBalance"
            inputMode="decimal"
            value={balance}
            onInput={(e) => setBalance(e.currentTarget.value)}
          />
        </label>
        <label>
          As of
          <input
            type="date"
            name="openingBalanceDate"
            value={date}
            onInput={(e) => setDate(e.currentTarget.value)}
          />
        </label>
        <button type="submit" class="primary" disabled={busy}>
          Add account
        </button>
      </div>
      <p class="muted small-print">
        {kind.onBudget ? 'This account is on budget. ' : 'This account is off budget. '}
        {ON_BUDGET_WORDS} What you owe (a card, a loan) is a negative balance, such as -300.00.
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </form>
  )
}
