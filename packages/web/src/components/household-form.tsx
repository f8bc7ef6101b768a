import type { Hearth } from '@hearth/client'
import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import { errorMessage } from '../format.ts'

/** Common currencies first; the household's own is always offered. */
const CURRENCIES = ['USD', 'EUR', 'GBP', 'CAD', 'AUD', 'CHF', 'JPY', 'SEK', 'NOK', 'DKK', 'NZD', 'INR']

/**
 * The household's name, currency and time zone, saved on the device (`households.update`, owners
 * only), whose refusals (a member, a currency fixed by its transactions) are shown in their words.
 * `children` are more buttons beside the save button.
 */
export function HouseholdForm(props: {
  hearth: Hearth
  household: { name: string; baseCurrency: string; timeZone: string }
  saveLabel: string
  onSaved: () => void
  children?: ComponentChildren
}) {
  const [name, setName] = useState(props.household.name)
  const [currency, setCurrency] = useState(props.household.baseCurrency)
  const [timeZone, setTimeZone] = useState(props.household.timeZone)
  const [error, setError] = useState<string | null>(null)
  const zones = Intl.supportedValuesOf('timeZone')
  const save = async (event: Event) => {
    event.preventDefault()
    if (!name.trim()) return setError('The household needs a name.')
    try {
      await props.hearth.mutate.households.update({ name: name.trim(), baseCurrency: currency, timeZone })
      setError(null)
      props.onSaved()
    } catch (e) {
      setError(errorMessage(e))
    }
  }
  return (
    <form class="card stack" onSubmit={save} aria-label="Your household">
      <label>
        Household name
        <input name="householdName" value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label>
        Currency
        <select name="currency" value={currency} onChange={(e) => setCurrency(e.currentTarget.value)}>
          {[...new Set([props.household.baseCurrency, ...CURRENCIES])].map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </label>
      <p class="muted small-print">
        Every amount is kept in this currency; it is fixed once you record a transaction.
      </p>
      <label>
        Time zone
        <select name="timeZone" value={timeZone} onChange={(e) => setTimeZone(e.currentTarget.value)}>
          {[...new Set([props.household.timeZone, ...zones])].map((z) => (
            <option key={z} value={z}>
              {z}
            </option>
          ))}
        </select>
      </label>
      <p class="muted small-print">Days, months and due dates begin and end in this time zone.</p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="row step-buttons">
        <button type="submit" class="primary">
          {props.saveLabel}
        </button>
        {props.children}
      </div>
    </form>
  )
}
