import { type Hearth, ulid } from '@hearth/client'
import { formatCents, formatDate } from '../../format.ts'
import type { QueryResult } from '../../hooks.ts'
import { frequencyWords } from './frequency-words.ts'

type Suggestion = QueryResult<'recurrences.suggestions'>['items'][number]
type Account = QueryResult<'accounts.list'>['items'][number]

/**
 * What the engine detected: price changes on tracked bills (old and new amount), then recurring
 * charges nothing tracks yet, each to accept or dismiss. An accepted charge becomes a recurrence
 * (listed below, where it can be edited); an accepted price change sets the bill's amount.
 */
export function SuggestionsPanel(props: {
  hearth: Hearth
  suggestions: Suggestion[]
  accounts: ReadonlyMap<string, Account>
  act: (work: Promise<unknown>, done: string) => void
}) {
  const { hearth, suggestions, act } = props
  const prices = suggestions.filter((s) => s.kind === 'priceChange')
  const detected = suggestions.filter((s) => s.kind === 'recurring')
  const currency = (s: Suggestion) => props.accounts.get(s.accountId)?.currency ?? 'USD'
  const accept = (s: Suggestion) =>
    act(
      hearth.mutate.recurrences.acceptSuggestion(
        s.kind === 'recurring' ? { key: s.key, recurrenceId: ulid() } : { key: s.key },
      ),
      s.kind === 'recurring'
        ? `${s.name} is tracked now.`
        : `${s.name} costs ${formatCents(s.amountCents, currency(s))} now.`,
    )
  const dismiss = (s: Suggestion) =>
    act(hearth.mutate.recurrences.dismissSuggestion({ key: s.key }), `${s.name} dismissed.`)

  return (
    <section class="card stack" aria-labelledby="suggestions-title" data-panel="suggestions">
      <h2 id="suggestions-title" class="card-title">
        Detected
      </h2>
      {suggestions.length === 0 && (
        <p class="muted">No new recurring charge or price change was found in your history.</p>
      )}
      {prices.length > 0 && (
        <>
          <h3>Price changes</h3>
          <ul class="plain-list stack">
            {prices.map((s) => (
              <li key={s.key} data-suggestion={s.key} data-kind="priceChange">
                <strong>{s.name}</strong> was charged{' '}
                <span data-cents={s.amountCents}>{formatCents(s.amountCents, currency(s))}</span> the last two
                times, not{' '}
                <span data-previous-cents={s.previousAmountCents ?? undefined}>
                  {s.previousAmountCents ? formatCents(s.previousAmountCents, currency(s)) : 'its amount'}
                </span>
                .{' '}
                <SuggestionButtons s={s} accept={accept} dismiss={dismiss} acceptWords="Use the new price" />
              </li>
            ))}
          </ul>
        </>
      )}
      {detected.length > 0 && (
        <>
          <h3>Recurring charges</h3>
          <ul class="plain-list stack">
            {detected.map((s) => (
              <li key={s.key} data-suggestion={s.key} data-kind="recurring">
                <strong>{s.name}</strong>,{' '}
                <span data-cents={s.amountCents}>{formatCents(s.amountCents, currency(s))}</span>{' '}
                {frequencyWords(s)} from {props.accounts.get(s.accountId)?.name ?? 'an account'}: seen{' '}
                {s.occurrences} times, last on {formatDate(s.lastDate)}, next expected{' '}
                {formatDate(s.nextDate)}.
                {s.previousAmountCents && (
                  <>
                    {' '}
                    The price changed from{' '}
                    <span data-previous-cents={s.previousAmountCents}>
                      {formatCents(s.previousAmountCents, currency(s))}
                    </span>{' '}
                    to {formatCents(s.amountCents, currency(s))}.
                  </>
                )}{' '}
                <SuggestionButtons s={s} accept={accept} dismiss={dismiss} acceptWords="Track it" />
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  )
}

function SuggestionButtons(props: {
  s: Suggestion
  accept: (s: Suggestion) => void
  dismiss: (s: Suggestion) => void
  acceptWords: string
}) {
  return (
    <span class="row">
      <button
        type="button"
        class="small primary"
        aria-label={`${props.acceptWords}: ${props.s.name}`}
        onClick={() => props.accept(props.s)}
      >
        {props.acceptWords}
      </button>
      <button
        type="button"
        class="small ghost"
        aria-label={`Dismiss ${props.s.name}`}
        onClick={() => props.dismiss(props.s)}
      >
        Dismiss
      </button>
    </span>
  )
}
