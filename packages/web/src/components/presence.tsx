import type { Hearth, PresenceEntry } from '@hearth/client'
import { useEffect, useState } from 'preact/hooks'

/** Who is online in the household now (y-protocols awareness over the sync socket). */
export function PresenceList(props: { hearth: Hearth }) {
  const [entries, setEntries] = useState<PresenceEntry[]>(() => props.hearth.presence.list())
  useEffect(() => {
    setEntries(props.hearth.presence.list())
    return props.hearth.on('presence', (list) => setEntries([...list]))
  }, [props.hearth])
  return (
    <section class="presence" aria-label="Online now">
      <ul>
        {entries.map((e) => (
          <li
            key={e.clientId}
            class={e.self ? 'self' : ''}
            title={`${e.deviceName ?? 'A device'}${e.self ? ' (this device)' : ''}${
              typeof e.state.screen === 'string' ? ` · on ${e.state.screen}` : ''
            }`}
            data-user={e.userId}
          >
            <span class="avatar" aria-hidden="true">
              {initials(e.deviceName ?? '?')}
            </span>
            <span class="visually-hidden">
              {e.deviceName ?? 'A device'}
              {e.self ? ' (this device)' : ''}
            </span>
          </li>
        ))}
      </ul>
      <span class="presence-count">{entries.length} online</span>
    </section>
  )
}

function initials(name: string): string {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => w[0]!.toUpperCase())
    .join('')
}
