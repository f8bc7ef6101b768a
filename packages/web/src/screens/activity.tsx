import type { Hearth } from '@hearth/client'
import { useState } from 'preact/hooks'
import { ActivityEntries, type ActivityFilter, type ActivityReader } from '../components/activity-list.tsx'
import { useWatch } from '../hooks.ts'
import { type ServerAccess, serverCall } from '../server-calls.ts'
import { useServerRead } from '../server-read.ts'

interface Member {
  userId: string
  name: string
  role: 'owner' | 'member'
}

/**
 * Who changed what (issue 43): the household's activity from the server, narrowed by member,
 * account and period, each entry with who, when, what and each field before → after, and Undo on
 * the entries this member may undo (their own; an owner's, anyone's).
 */
export function ActivityScreen(props: { hearth: Hearth; access: ServerAccess; householdId: string }) {
  const { access, householdId } = props
  const me = useServerRead(() => serverCall<{ id: string }>(access, 'GET', '/users/me'), [access])
  const members = useServerRead(
    () => serverCall<{ items: Member[] }>(access, 'GET', `/households/${householdId}/members`),
    [householdId],
  )
  const accounts = useWatch(props.hearth, 'accounts.list', {}).data?.items ?? []
  const [filter, setFilter] = useState<ActivityFilter>({})
  const set = (key: keyof ActivityFilter, value: string) =>
    setFilter({ ...filter, [key]: value || undefined })
  const role = members.data?.items.find((m) => m.userId === me.data?.id)?.role
  const reader: ActivityReader | null = me.data && role ? { userId: me.data.id, role } : null

  return (
    <section aria-labelledby="activity-title">
      <header class="screen-header">
        <h1 id="activity-title">Activity</h1>
      </header>
      <p class="muted">
        Every change to the household: who made it, from where, and what it changed. You can undo your own
        changes{role === 'owner' ? ', and as an owner anyone’s' : ''}, as long as nothing later changed the
        same things.
      </p>
      <form class="activity-filters" aria-label="Filter the activity" onSubmit={(e) => e.preventDefault()}>
        <label>
          Member
          <select
            name="memberId"
            aria-label="Member"
            value={filter.memberId ?? ''}
            onChange={(e) => set('memberId', e.currentTarget.value)}
          >
            <option value="">Everyone</option>
            {(members.data?.items ?? []).map((m) => (
              <option key={m.userId} value={m.userId}>
                {m.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Account
          <select
            name="accountId"
            aria-label="Account"
            value={filter.accountId ?? ''}
            onChange={(e) => set('accountId', e.currentTarget.value)}
          >
            <option value="">All accounts</option>
            {accounts.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          From
          <input
            type="date"
            name="dateFrom"
            value={filter.dateFrom ?? ''}
            onChange={(e) => set('dateFrom', e.currentTarget.value)}
          />
        </label>
        <label>
          To
          <input
            type="date"
            name="dateTo"
            value={filter.dateTo ?? ''}
            onChange={(e) => set('dateTo', e.currentTarget.value)}
          />
        </label>
      </form>
      <ActivityEntries access={access} householdId={householdId} filter={filter} reader={reader} />
    </section>
  )
}
