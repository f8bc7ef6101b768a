import type { Hearth } from '@hearth/client'
import { useSyncStatus } from '../hooks.ts'
import { useBrowserOnline } from '../reads/use-replica-state.ts'
import { syncBadgeState } from './sync-badge-state.ts'

/** Synced, syncing, connecting or offline, with the changes waiting for the server. */
export function SyncBadge(props: { hearth: Hearth }) {
  const status = useSyncStatus(props.hearth)
  const { state, label } = syncBadgeState(status, useBrowserOnline())
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
