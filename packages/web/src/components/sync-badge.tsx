import type { Hearth } from '@hearth/client'
import { useEffect, useState } from 'preact/hooks'
import { useSyncStatus } from '../hooks.ts'

/** Online, syncing or offline, with the changes waiting for the server. */
export function SyncBadge(props: { hearth: Hearth }) {
  const status = useSyncStatus(props.hearth)
  const browserOnline = useBrowserOnline()
  const state = status.error ? 'stopped' : !browserOnline ? 'offline' : status.state
  const label =
    state === 'stopped'
      ? `Sync stopped: ${status.error?.message}`
      : state === 'online'
        ? 'Synced'
        : state === 'syncing'
          ? 'Syncing'
          : 'Offline'
  return (
    <output
      class={`sync-badge sync-${state}`}
      aria-live="polite"
      data-state={state}
      data-pending={status.pending}
    >
      <span class="dot" aria-hidden="true" />
      <span class="sync-label">{label}</span>
      {status.pending > 0 && (
        <span class="pending" title="Changes on this device the server has not confirmed yet">
          {status.pending} waiting
        </span>
      )}
    </output>
  )
}

/** The browser's own idea of the network, which changes at once when it goes offline. */
function useBrowserOnline(): boolean {
  const [online, setOnline] = useState(navigator.onLine)
  useEffect(() => {
    const update = () => setOnline(navigator.onLine)
    addEventListener('online', update)
    addEventListener('offline', update)
    return () => {
      removeEventListener('online', update)
      removeEventListener('offline', update)
    }
  }, [])
  return online
}
