import type { Hearth } from '@hearth/client'
import { useState } from 'preact/hooks'
import { errorMessage } from '../../format.ts'
import { useWatch } from '../../hooks.ts'
import { useLookups } from '../../lookups.ts'
import { ReadGuard } from '../../reads/read-guard.tsx'
import { RecurrenceList } from './recurrence-list.tsx'
import { SuggestionsPanel } from './suggestions-panel.tsx'
import { UpcomingPanel } from './upcoming-panel.tsx'
import '../../reports/reports.css'

const WINDOWS = [30, 60, 90] as const

/**
 * Bills and subscriptions: what is coming (a list or a month calendar, with each paying account's
 * balance and the low-balance check), what the engine detected (charges to track, price changes),
 * and every tracked recurrence to pause, resume, book now or edit. All of it reads the replica and
 * writes through device mutators, so it works offline and follows what other devices do.
 */
export function BillsScreen(props: { hearth: Hearth }) {
  const { hearth } = props
  const [days, setDays] = useState<(typeof WINDOWS)[number]>(60)
  const [accountId, setAccountId] = useState('')
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null)
  const lookups = useLookups(hearth)
  const upcoming = useWatch(hearth, 'recurrences.upcoming', accountId ? { days, accountId } : { days })
  const suggestions = useWatch(hearth, 'recurrences.suggestions', {})
  const recurrences = useWatch(hearth, 'recurrences.list', {})
  const act = (work: Promise<unknown>, done: string) =>
    void work.then(
      () => setMessage({ kind: 'ok', text: done }),
      (e) => setMessage({ kind: 'error', text: errorMessage(e) }),
    )
  const payers = lookups.accounts.filter((a) => a.status === 'open' && a.type !== 'tracking')

  return (
    <section aria-labelledby="bills-title" class="bills stack">
      <header class="screen-header">
        <h1 id="bills-title">Bills and subscriptions</h1>
        <form class="report-range" aria-label="What to show" onSubmit={(e) => e.preventDefault()}>
          <div class="report-field">
            <label for="bills-days">Look ahead</label>
            <select
              id="bills-days"
              value={String(days)}
              onChange={(e) => setDays(Number(e.currentTarget.value) as (typeof WINDOWS)[number])}
            >
              {WINDOWS.map((d) => (
                <option key={d} value={d}>
                  {d} days
                </option>
              ))}
            </select>
          </div>
          <div class="report-field">
            <label for="bills-account">Paying account</label>
            <select
              id="bills-account"
              value={accountId}
              onChange={(e) => setAccountId(e.currentTarget.value)}
            >
              <option value="">Every account</option>
              {payers.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name}
                </option>
              ))}
            </select>
          </div>
        </form>
      </header>
      <output
        class={message?.kind === 'error' ? 'error' : 'muted'}
        aria-live="polite"
        data-message={message?.kind}
      >
        {message?.text ?? ''}
      </output>
      <ReadGuard
        hearth={hearth}
        reads={[
          upcoming,
          suggestions,
          recurrences,
          lookups.reads.accounts,
          lookups.reads.payees,
          lookups.reads.categories,
        ]}
      >
        {() => (
          <>
            <UpcomingPanel upcoming={upcoming.data!} accounts={lookups.account} names={lookups.payeeName} />
            <SuggestionsPanel
              hearth={hearth}
              suggestions={suggestions.data!.items}
              accounts={lookups.account}
              act={act}
            />
            <RecurrenceList
              hearth={hearth}
              recurrences={recurrences.data!.items}
              accounts={lookups.account}
              categories={lookups.categoryGroups.flatMap((g) => g.categories)}
              act={act}
            />
          </>
        )}
      </ReadGuard>
    </section>
  )
}
