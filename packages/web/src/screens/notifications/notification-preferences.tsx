import { useEffect, useState } from 'preact/hooks'
import { errorMessage } from '../../format.ts'
import { type ServerAccess, serverCall } from '../../server-calls.ts'
import { useServerRead } from '../../server-read.ts'
import { CHANNEL_WORDS, KIND_WORDS } from './kind-words.ts'

/** One (kind, channel) preference as the server keeps it. */
export interface NotificationPreference {
  kind: string
  channel: string
  enabled: boolean
  lockScreenDetails: boolean
  thresholdCents: string | null
}
/** A channel and whether this server can send on it. */
export interface ChannelInfo {
  channel: string
  available: boolean
  vapidPublicKey?: string
}
/** `GET /notifications/preferences`. */
export interface Preferences {
  items: NotificationPreference[]
  channels: ChannelInfo[]
}

/**
 * Which kinds reach the member on which channel, as a table of kinds by channels; a channel the
 * server cannot send on is shown and said to be unavailable. Each change is saved at once.
 */
export function NotificationPreferences(props: {
  access: ServerAccess
  prefs: ReturnType<typeof usePreferences>
}) {
  const { prefs } = props
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null)
  // A box stays as it was clicked while its change is saved (the table is read again after).
  const [saving, setSaving] = useState<Record<string, boolean>>({})
  const keyOf = (p: NotificationPreference) => `${p.kind}/${p.channel}`
  // Read again, the table is the server's.
  useEffect(() => setSaving({}), [prefs.data])
  const save = async (p: NotificationPreference, enabled: boolean) => {
    setMessage(null)
    setSaving((s) => ({ ...s, [keyOf(p)]: enabled }))
    try {
      await serverCall(props.access, 'PUT', '/notifications/preferences', {
        body: { items: [{ kind: p.kind, channel: p.channel, enabled }] },
      })
      setMessage({
        kind: 'ok',
        text: `${KIND_WORDS[p.kind] ?? p.kind}: ${CHANNEL_WORDS[p.channel]} ${enabled ? 'on' : 'off'}.`,
      })
      prefs.reload()
    } catch (e) {
      setMessage({ kind: 'error', text: errorMessage(e) })
      setSaving(({ [keyOf(p)]: _, ...rest }) => rest)
    }
  }
  if (prefs.error)
    return (
      <p role="alert" class="error">
        {errorMessage(prefs.error)}
      </p>
    )
  if (!prefs.data)
    return (
      <p class="muted" aria-busy="true">
        Reading your preferences…
      </p>
    )
  const { items, channels } = prefs.data
  const kinds = [...new Set(items.map((p) => p.kind))]
  const unavailable = channels.filter((c) => !c.available)
  return (
    <>
      <table class="table preferences-table">
        <caption class="visually-hidden">Which notifications reach you, and how</caption>
        <thead>
          <tr>
            <th scope="col">Notification</th>
            {channels.map((c) => (
              <th key={c.channel} scope="col">
                {CHANNEL_WORDS[c.channel] ?? c.channel}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {kinds.map((kind) => (
            <tr key={kind} data-kind={kind}>
              <th scope="row">{KIND_WORDS[kind] ?? kind}</th>
              {channels.map((c) => {
                const p = items.find((i) => i.kind === kind && i.channel === c.channel)
                return (
                  <td key={c.channel}>
                    {p && (
                      <input
                        type="checkbox"
                        data-channel={c.channel}
                        aria-label={`${KIND_WORDS[kind] ?? kind} by ${CHANNEL_WORDS[c.channel] ?? c.channel}`}
                        checked={saving[keyOf(p)] ?? p.enabled}
                        disabled={!c.available}
                        onChange={(e) => save(p, e.currentTarget.checked)}
                      />
                    )}
                  </td>
                )
              })}
            </tr>
          ))}
        </tbody>
      </table>
      {unavailable.length > 0 && (
        <p class="muted">
          This server does not send{' '}
          {unavailable.map((c) => (CHANNEL_WORDS[c.channel] ?? c.channel).toLowerCase()).join(' or ')}{' '}
          notifications (it is not set up for them), so those cannot be switched on.
        </p>
      )}
      {message && (
        <p
          role={message.kind === 'error' ? 'alert' : 'status'}
          class={message.kind === 'error' ? 'error' : 'ok'}
        >
          {message.text}
        </p>
      )}
    </>
  )
}

/** The member's preferences and the server's channels, read again on `reload`. */
export function usePreferences(access: ServerAccess) {
  return useServerRead(() => serverCall<Preferences>(access, 'GET', '/notifications/preferences'), [access])
}
