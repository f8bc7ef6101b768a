import { useState } from 'preact/hooks'
import { errorMessage, formatDate } from '../../format.ts'
import { ReadGuard } from '../../reads/read-guard.tsx'
import { type ServerAccess, serverCall } from '../../server-calls.ts'
import { useServerRead } from '../../server-read.ts'
import { InviteForm } from './invite-form.tsx'
import { ROLE_WORDS, roleOf } from './role-words.ts'

interface Member {
  userId: string
  name: string
  email: string | null
  role: 'owner' | 'member'
  joinedAt: string
}
interface Invitation {
  id: string
  role: 'owner' | 'member'
  scopes: string[]
  prefix: string
  note: string | null
  status: 'pending' | 'redeemed' | 'revoked' | 'expired'
  expiresAt: string
}

/**
 * The household's members with their roles, and for owners: inviting with a role preset, the
 * pending invitations (revoke), changing a role and removing a member. Anyone may leave. These are
 * the server's (a device never changes membership), so they are REST calls, read again after each.
 */
export function MembersScreen(props: { access: ServerAccess; householdId: string }) {
  const { access, householdId } = props
  const h = `/households/${householdId}`
  const me = useServerRead(() => serverCall<{ id: string }>(access, 'GET', '/users/me'), [access])
  const members = useServerRead(() => serverCall<{ items: Member[] }>(access, 'GET', `${h}/members`), [h])
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null)
  const myRole = members.data?.items.find((m) => m.userId === me.data?.id)?.role
  const act = (work: Promise<unknown>, ok: string) =>
    work.then(
      () => {
        setMessage({ kind: 'ok', text: ok })
        members.reload()
      },
      (e) => setMessage({ kind: 'error', text: errorMessage(e) }),
    )

  return (
    <section aria-labelledby="members-title">
      <header class="screen-header">
        <h1 id="members-title">Members</h1>
      </header>
      {message && (
        <p
          role={message.kind === 'error' ? 'alert' : 'status'}
          class={message.kind === 'error' ? 'error' : 'ok'}
        >
          {message.text}
        </p>
      )}
      <ReadGuard hearth={null} reads={[members, me]}>
        {() => (
          <>
            <section class="card" aria-labelledby="member-list-title">
              <h2 id="member-list-title" class="card-title">
                Who is in the household
              </h2>
              <table class="table">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Role</th>
                    <th scope="col">Joined</th>
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {members.data!.items.map((m) => {
                    const self = m.userId === me.data!.id
                    return (
                      <tr key={m.userId} data-member={m.name}>
                        <td>
                          {m.name}
                          {self && <span class="muted"> (you)</span>}
                        </td>
                        <td>
                          {myRole === 'owner' && !self ? (
                            <select
                              aria-label={`Role of ${m.name}`}
                              value={m.role}
                              onChange={(e) =>
                                act(
                                  serverCall(access, 'PATCH', `${h}/members/${m.userId}`, {
                                    body: { role: e.currentTarget.value },
                                  }),
                                  `${m.name} is now ${e.currentTarget.value === 'owner' ? 'an owner' : 'a member'}.`,
                                )
                              }
                            >
                              <option value="owner">Owner</option>
                              <option value="member">Member</option>
                            </select>
                          ) : (
                            ROLE_WORDS[m.role].name
                          )}
                        </td>
                        <td>{formatDate(m.joinedAt.slice(0, 10))}</td>
                        <td class="row">
                          {self ? (
                            <button
                              type="button"
                              class="small danger ghost"
                              onClick={() =>
                                confirm('Leave this household? Your keys lose it at once.') &&
                                act(
                                  serverCall(access, 'DELETE', `${h}/members/me`),
                                  'You left the household. Sign out to finish.',
                                )
                              }
                            >
                              Leave the household
                            </button>
                          ) : (
                            myRole === 'owner' && (
                              <>
                                <button
                                  type="button"
                                  class="small ghost"
                                  aria-label={`Reset link for ${m.name}`}
                                  onClick={() =>
                                    serverCall<{ url: string; emailed: boolean }>(
                                      access,
                                      'POST',
                                      `${h}/members/${m.userId}/reset-link`,
                                    ).then(
                                      (link) =>
                                        setMessage({
                                          kind: 'ok',
                                          text: `${m.name} sets a new password at ${link.url} (works once, for 24 hours${link.emailed ? '; emailed to them too' : ''}).`,
                                        }),
                                      (e) => setMessage({ kind: 'error', text: errorMessage(e) }),
                                    )
                                  }
                                >
                                  Reset link
                                </button>
                                <button
                                  type="button"
                                  class="small danger ghost"
                                  aria-label={`Remove ${m.name}`}
                                  onClick={() =>
                                    confirm(`Remove ${m.name}? Their keys lose the household at once.`) &&
                                    act(
                                      serverCall(access, 'DELETE', `${h}/members/${m.userId}`),
                                      `${m.name} was removed.`,
                                    )
                                  }
                                >
                                  Remove
                                </button>
                              </>
                            )
                          )}
                        </td>
                      </tr>
                    )
                  })}
                </tbody>
              </table>
              <dl class="role-words">
                {(['owner', 'member', 'viewer'] as const).map((r) => (
                  <div key={r}>
                    <dt>{ROLE_WORDS[r].name}</dt>
                    <dd>{ROLE_WORDS[r].allows}</dd>
                  </div>
                ))}
              </dl>
            </section>
            {myRole === 'owner' && <Invitations access={access} h={h} householdId={householdId} />}
          </>
        )}
      </ReadGuard>
    </section>
  )
}

/** An owner's invitations: a new one with a role preset, and the pending ones to revoke. */
function Invitations(props: { access: ServerAccess; h: string; householdId: string }) {
  const { access, h } = props
  const invitations = useServerRead(
    () => serverCall<{ items: Invitation[] }>(access, 'GET', `${h}/invitations`),
    [h],
  )
  const [error, setError] = useState<string | null>(null)
  const revoke = (i: Invitation) =>
    serverCall(access, 'DELETE', `${h}/invitations/${i.id}`).then(invitations.reload, (e) =>
      setError(errorMessage(e)),
    )
  return (
    <section class="stack" aria-labelledby="invitations-title">
      <h2 id="invitations-title">Invitations</h2>
      <InviteForm access={access} householdId={props.householdId} onInvited={invitations.reload} />
      <ReadGuard hearth={null} reads={[invitations]}>
        {() => {
          const pending = invitations.data!.items.filter((i) => i.status === 'pending')
          return (
            <div class="card">
              <h3 class="card-title">Waiting to be used</h3>
              {pending.length === 0 && <p class="muted">No invitation is waiting.</p>}
              <ul class="plain-list" aria-label="Pending invitations">
                {pending.map((i) => (
                  <li key={i.id} class="row">
                    <span>{i.note ?? 'Invitation'}</span>
                    <span class="muted">
                      {ROLE_WORDS[roleOf(i.role, i.scopes)].name} · code {i.prefix}… · until{' '}
                      {formatDate(i.expiresAt.slice(0, 10))}
                    </span>
                    <button
                      type="button"
                      class="small"
                      aria-label={`Revoke the invitation for ${i.note ?? i.prefix}`}
                      onClick={() => revoke(i)}
                    >
                      Revoke
                    </button>
                  </li>
                ))}
              </ul>
              {error && (
                <p role="alert" class="error">
                  {error}
                </p>
              )}
            </div>
          )
        }}
      </ReadGuard>
    </section>
  )
}
