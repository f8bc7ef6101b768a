import type { Hearth } from '@hearth/client'
import type { ComponentChildren } from 'preact'
import { type ReadProblem, type ReadState, readProblem } from './read-problem.ts'
import { scopeWords } from './scope-words.ts'
import { useReplicaState } from './use-replica-state.ts'

/**
 * The one place a screen says why it shows no data: it renders `children` once every read in
 * `reads` answered on a replica that has its rows, and otherwise the reason in a household's words
 * (`readProblem`), never an empty table as if it were true.
 */
export function ReadGuard(props: {
  hearth: Hearth | null
  reads: readonly ReadState[]
  children: () => ComponentChildren
}) {
  const replica = useReplicaState(props.hearth)
  const problem = readProblem(props.reads, replica)
  return problem ? <ReadMessage problem={problem} /> : props.children()
}

/** A read problem as a person reads it; `data-problem` names its kind for tests and styles. */
export function ReadMessage(props: { problem: ReadProblem }) {
  const { problem } = props
  switch (problem.kind) {
    case 'scope':
      return (
        <div class="read-problem card" role="alert" data-problem="scope" data-scope={problem.scope}>
          <p class="read-problem-title">You can’t see {scopeWords(problem.scope)} with this sign-in.</p>
          <p>
            An owner of the household can give you access: ask them for a key or an invitation that includes “
            {problem.scope}”.
          </p>
        </div>
      )
    case 'offline-empty':
      return (
        <div class="read-problem card" role="status" data-problem="offline-empty">
          <p class="read-problem-title">You’re offline, and this device has no copy of the household yet.</p>
          <p>It appears here as soon as this device reaches the server again.</p>
        </div>
      )
    case 'first-sync':
      return (
        <div class="read-problem card" role="status" aria-busy="true" data-problem="first-sync">
          <p class="read-problem-title">Bringing your household to this device for the first time…</p>
          {problem.loadedRows !== null && (
            <p data-testid="first-sync-rows">
              {problem.loadedRows.toLocaleString('en-US')} rows loaded so far.
            </p>
          )}
          <p class="muted">This happens once; afterwards it opens at once, even offline.</p>
        </div>
      )
    case 'stopped':
      return (
        <div class="read-problem card" role="alert" data-problem="stopped" data-code={problem.code}>
          <p class="read-problem-title">This device could not get the household from the server.</p>
          <p>{problem.message}</p>
        </div>
      )
    case 'error':
      return (
        <div
          class="read-problem card"
          role="alert"
          data-problem="error"
          data-code={problem.code ?? undefined}
        >
          <p class="read-problem-title">Hearth could not read this.</p>
          <p>{problem.message}</p>
        </div>
      )
    default:
      return (
        <p
          class="read-problem read-problem-opening muted"
          role="status"
          aria-busy="true"
          data-problem="opening"
        >
          Opening…
        </p>
      )
  }
}
