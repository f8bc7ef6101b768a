import type { Hearth, SyncStatus } from '@hearth/client'
import { useEffect, useState } from 'preact/hooks'
import type { ReplicaState } from './read-problem.ts'

/** Where this device's replica stands, live; null while the replica is still opening. */
export function useReplicaState(hearth: Hearth | null): ReplicaState | null {
  const online = useBrowserOnline()
  const [status, setStatus] = useState<SyncStatus | null>(() => hearth?.sync.status ?? null)
  useEffect(() => {
    if (!hearth) return setStatus(null)
    setStatus({ ...hearth.sync.status })
    const stops = [
      hearth.on('status', (s) => setStatus({ ...s })),
      hearth.on('reconnecting', () => setStatus({ ...hearth.sync.status })),
    ]
    return () => {
      for (const stop of stops) stop()
    }
  }, [hearth])
  if (!hearth || !status) return null
  return replicaStateOf(status, online)
}

/** The replica's state from the SDK's status and the browser's network. */
export function replicaStateOf(status: SyncStatus, browserOnline: boolean): ReplicaState {
  return {
    version: status.version,
    // Online until the browser says otherwise or an attempt to reach the server has failed.
    reachable: browserOnline && status.retryAttempt === 0,
    stopped: status.error ? { code: status.error.code, message: status.error.message } : null,
    loadedRows: status.snapshot?.loadedRows ?? null,
  }
}

/** The browser's own idea of the network, which changes at once when it goes offline. */
export function useBrowserOnline(): boolean {
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

/**
 * `hearth` once its replica holds the household's rows. A replica reopened from IndexedDB can
 * be empty (its files are flushed after the commits they hold, so a reload soon after the first
 * snapshot may find none of it); a change made on it then would be refused there, and lost.
 */
export function withRows(hearth: Hearth): Promise<Hearth> {
  if (hearth.sync.status.version !== null) return Promise.resolve(hearth)
  return new Promise((resolve) => {
    const stop = hearth.on('status', (s) => {
      if (s.version === null) return
      stop()
      resolve(hearth)
    })
  })
}
