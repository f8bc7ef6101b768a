import { errorMessage } from '../format.ts'
import { type ServerAccess, serverCall } from '../server-calls.ts'
import { useServerRead } from '../server-read.ts'

interface UsageCount {
  requests: number
  tokens: number
  requestCap: number
  tokenCap: number
  resetsAt: string
}

/** Your questions today and the household's this month, against their caps (0 is no cap). */
export function UsageLine(props: { access: ServerAccess; householdId: string; round: number }) {
  const usage = useServerRead(
    () =>
      serverCall<{ user: UsageCount; household: UsageCount }>(
        props.access,
        'GET',
        `/households/${props.householdId}/ai/usage`,
      ),
    [props.householdId, props.round],
  )
  if (usage.error) return <p class="muted">Usage unknown: {errorMessage(usage.error)}</p>
  if (!usage.data) return null
  const { user, household } = usage.data
  return (
    <dl class="usage-line" aria-label="Assistant usage">
      <div data-usage="user" data-requests={user.requests}>
        <dt>You today</dt>
        <dd>{counted(user)}</dd>
      </div>
      <div data-usage="household" data-requests={household.requests}>
        <dt>Household this month</dt>
        <dd>{counted(household)}</dd>
      </div>
    </dl>
  )
}

function counted(u: UsageCount): string {
  const of = (n: number, cap: number) =>
    cap > 0 ? `${n.toLocaleString()} of ${cap.toLocaleString()}` : `${n.toLocaleString()} (no limit)`
  return `${of(u.requests, u.requestCap)} questions, ${of(u.tokens, u.tokenCap)} tokens`
}
