import { ulid } from '@hearth/client'
import { useState } from 'preact/hooks'
import { ShownOnce } from '../../components/shown-once.tsx'
import { errorMessage } from '../../format.ts'
import { type ServerAccess, serverCall } from '../../server-calls.ts'
import { INVITE_ROLES, type InviteRole, ROLE_WORDS } from './role-words.ts'

/** An invitation as the server answers its creation: the code is shown once. */
interface CreatedInvitation {
  id: string
  code: string
  role: string
  scopes: string[]
}

/**
 * Invites someone with a role preset (member, viewer, owner: `POST H/invitations {role}`), and
 * shows the code to hand them once. One Idempotency-Key per invitation, so a second click or a
 * retry after a dropped answer gets the same invitation back rather than a second one.
 */
export function InviteForm(props: { access: ServerAccess; householdId: string; onInvited?: () => void }) {
  const [role, setRole] = useState<InviteRole>('member')
  const [note, setNote] = useState('')
  const [key, setKey] = useState(ulid)
  const [busy, setBusy] = useState(false)
  const [created, setCreated] = useState<CreatedInvitation | null>(null)
  const [error, setError] = useState<string | null>(null)

  const submit = async (event: Event) => {
    event.preventDefault()
    if (busy) return
    setBusy(true)
    try {
      const invitation = await serverCall<CreatedInvitation>(
        props.access,
        'POST',
        `/households/${props.householdId}/invitations`,
        { body: { role, ...(note.trim() && { note: note.trim() }) }, idempotencyKey: key },
      )
      setCreated(invitation)
      setError(null)
      setKey(ulid())
      setNote('')
      props.onInvited?.()
    } catch (e) {
      setError(errorMessage(e))
    } finally {
      setBusy(false)
    }
  }
  return (
    <form class="card stack invite-form" onSubmit={submit} aria-label="Invite someone">
      <fieldset class="role-choice">
        <legend>Invite as</legend>
        {INVITE_ROLES.map((r) => (
          <label key={r} class="role-option">
            <input type="radio" name="role" value={r} checked={role === r} onChange={() => setRole(r)} />
            <span>
              <strong>{ROLE_WORDS[r].name}</strong>
              <span class="muted"> {ROLE_WORDS[r].allows}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <label>
        Who it is for (for your own list)
        <input name="note" value={note} onInput={(e) => setNote(e.currentTarget.value)} />
      </label>
      <button type="submit" class="primary" disabled={busy}>
        Create invitation
      </button>
      {created && (
        <ShownOnce key={created.code} label="Invitation code" secret={created.code}>
          Hand this code to them. They open Hearth at <strong>{location.origin}/app</strong>, choose
          “Invitation code” and enter it with their name. It works once, within 7 days, and is not shown
          again.
        </ShownOnce>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </form>
  )
}
