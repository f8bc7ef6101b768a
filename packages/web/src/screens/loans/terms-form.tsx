import type { Hearth } from '@hearth/client'
import { useState } from 'preact/hooks'
import { errorMessage, parseCents, today } from '../../format.ts'

/**
 * New terms for a loan from a date on (`loans.setTerms`, on the device): a new rate, a new
 * payment, or both; a loan without terms yet also takes what is owed, the term and the first
 * payment. What is left empty carries over from the terms before. The engine's refusals (a rate
 * that is no percentage, a date before the loan's first terms) are shown in its words.
 */
export function LoanTermsForm(props: { hearth: Hearth; id: string; name: string; first: boolean }) {
  const [from, setFrom] = useState(today())
  const [rate, setRate] = useState('')
  const [payment, setPayment] = useState('')
  const [owed, setOwed] = useState('')
  const [term, setTerm] = useState('')
  const [firstPayment, setFirstPayment] = useState('')
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null)
  const submit = async (event: Event) => {
    event.preventDefault()
    const paymentCents = payment.trim() ? parseCents(payment) : null
    const owedCents = owed.trim() ? parseCents(owed) : null
    if (payment.trim() && (paymentCents === null || paymentCents <= 0n))
      return setMessage({ kind: 'error', text: 'The payment must be an amount above zero, such as 1264.14.' })
    if (owed.trim() && (owedCents === null || owedCents <= 0n))
      return setMessage({ kind: 'error', text: 'What is owed must be an amount above zero.' })
    if (!props.first && !rate.trim() && !payment.trim())
      return setMessage({ kind: 'error', text: 'Give a new rate, a new payment, or both.' })
    try {
      await props.hearth.mutate.loans.setTerms({
        id: props.id,
        effectiveDate: from,
        ...(rate.trim() && { annualRatePercent: rate.trim() }),
        ...(paymentCents !== null && { paymentCents: String(paymentCents) }),
        ...(owedCents !== null && { principalCents: String(owedCents) }),
        ...(term.trim() && { termMonths: term.trim() }),
        ...(firstPayment && { firstPaymentDate: firstPayment }),
      })
      setMessage({ kind: 'ok', text: `New terms of ${props.name} from ${from} saved.` })
      setRate('')
      setPayment('')
    } catch (e) {
      setMessage({ kind: 'error', text: errorMessage(e) })
    }
  }
  return (
    <form
      class="card stack"
      onSubmit={submit}
      aria-label={`New terms for ${props.name}`}
      data-panel="new-terms"
    >
      <h2 class="card-title">{props.first ? 'Set the terms' : 'New terms'}</h2>
      <div class="row wrap">
        <label>
          From
          <input
            type="date"
            name="effectiveDate"
            required
            value={from}
            onInput={(e) => setFrom(e.currentTarget.value)}
          />
        </label>
        <label>
          Annual rate (%)
          <input
            name="rate"
            inputMode="decimal"
            value={rate}
            onInput={(e) => setRate(e.currentTarget.value)}
          />
        </label>
        <label>
          Monthly payment
          <input
            name="payment"
            inputMode="decimal"
            value={payment}
            onInput={(e) => setPayment(e.currentTarget.value)}
          />
        </label>
        {props.first && (
          <>
            <label>
              Owed
              <input
                name="owed"
                inputMode="decimal"
                value={owed}
                onInput={(e) => setOwed(e.currentTarget.value)}
              />
            </label>
            <label>
              Term (months)
              <input
                name="term"
                inputMode="numeric"
                value={term}
                onInput={(e) => setTerm(e.currentTarget.value)}
              />
            </label>
            <label>
              First payment
              <input
                type="date"
                name="firstPayment"
                value={firstPayment}
                onInput={(e) => setFirstPayment(e.currentTarget.value)}
              />
            </label>
          </>
        )}
      </div>
      <p class="muted small-print">
        {props.first
          ? 'What is owed, the rate and the term (or the payment) make the schedule.'
          : 'What you leave empty stays as it was; a new rate alone keeps the payoff date and changes the payment.'}
      </p>
      <button type="submit" class="primary">
        Save terms
      </button>
      {message && (
        <p role={message.kind === 'error' ? 'alert' : 'status'} class={message.kind}>
          {message.text}
        </p>
      )}
    </form>
  )
}
