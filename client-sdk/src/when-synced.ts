import type { Emitter } from './emitter.ts'
import { HearthError } from './hearth-error.ts'
import type { HearthEvents, SyncStatus } from './sync-client.ts'

/**
 * Resolves once sync is online (connected, caught up, nothing pending). Rejects at once with a
 * `HearthError` carrying the server's code when a refusal stopped sync (a wrong key, a missing
 * scope, a household the key's user is not in), and with `SYNC_TIMEOUT` after `timeoutMs`.
 */
export function whenSynced(
  events: Emitter<HearthEvents>,
  status: () => SyncStatus,
  timeoutMs: number,
): Promise<void> {
  const now = status()
  if (now.state === 'online') return Promise.resolve()
  if (now.error) return Promise.reject(refused(now.error))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off()
      const s = status()
      reject(
        new HearthError(
          'SYNC_TIMEOUT',
          `Not synced after ${timeoutMs} ms: ${
            s.state === 'offline' ? 'the server has not let this device in yet' : 'still catching up'
          } (${s.pending} pending).`,
        ),
      )
    }, timeoutMs)
    const off = events.on('status', (s) => {
      if (s.state !== 'online' && !s.error) return
      clearTimeout(timer)
      off()
      if (s.error) reject(refused(s.error))
      else resolve()
    })
  })
}

function refused(error: { code: string; message: string }): HearthError {
  return new HearthError(error.code, `Sync was refused: ${error.message}`)
}
