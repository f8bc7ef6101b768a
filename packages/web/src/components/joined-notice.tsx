import { useEffect, useState } from 'preact/hooks'
import { type InviteRole, ROLE_WORDS, roleOf } from '../screens/members/role-words.ts'
import { type ServerAccess, serverCall } from '../server-calls.ts'

/**
 * Tells a person who joined a household what their role lets them do, once per sign-in (the
 * replica's store name): owners, who set the household up, are not told.
 */
export function JoinedNotice(props: { access: ServerAccess; householdId: string; store: string }) {
  const key = `hearth.joined-notice:${props.store}`
  const [role, setRole] = useState<InviteRole | null>(null)
  const [dismissed, setDismissed] = useState(() => localStorage.getItem(key) !== null)
  useEffect(() => {
    if (dismissed) return
    let live = true
    Promise.all([
      serverCall<{ items: { id: string; role: 'owner' | 'member' }[] }>(props.access, 'GET', '/households'),
      serverCall<{ items: { prefix: string; scopes: string[] }[] }>(
        props.access,
        'GET',
        '/users/me/api-keys',
      ),
    ]).then(
      ([households, keys]) => {
        const mine = households.items.find((h) => h.id === props.householdId)
        // A key's scopes say whether a member only reads (the viewer preset); a session is its role.
        const token = props.access.token
        const used = token ? keys.items.find((k) => token.startsWith(k.prefix)) : undefined
        if (live && mine) setRole(used ? roleOf(mine.role, used.scopes) : mine.role)
      },
      // Offline or refused: the Members screen says the same when opened.
      () => {},
    )
    return () => {
      live = false
    }
  }, [props.access, props.householdId, dismissed])
  if (dismissed || role === null || role === 'owner') return null
  const dismiss = () => {
    localStorage.setItem(key, new Date().toISOString())
    setDismissed(true)
  }
  return (
    <section class="joined-notice" role="status" aria-label="Your role">
      <p>
        You joined as a <strong>{ROLE_WORDS[role].name.toLowerCase()}</strong>. {ROLE_WORDS[role].allows}
      </p>
      <button type="button" class="ghost small" onClick={dismiss}>
        Got it
      </button>
    </section>
  )
}
