import { HearthError } from './hearth-error.ts'
import { blockDbName } from './idb-block-fs.ts'

/**
 * How long a page waits for a replica's lock before it answers REPLICA_IN_USE: long enough for
 * a reloaded page's previous document to let go of it, short enough for a person to be told.
 */
const LOCK_WAIT_MS = 3000

/**
 * Takes the Web Lock of the browser replica `name` (named as its IndexedDB database), so one tab
 * at a time has it open: two PGlite instances on one set of files would each overwrite the
 * other's writes. Answers the function that lets it go. A second tab gets a HearthError
 * `REPLICA_IN_USE`. Where there are no Web Locks (Node; or a page that is not a secure context,
 * which has no service worker either), nothing is held.
 */
export async function lockReplica(name: string): Promise<() => void> {
  const locks = (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks
  if (!locks) return () => {}
  const signal = AbortSignal.timeout(LOCK_WAIT_MS)
  const start = performance.now()
  return new Promise((resolve, reject) => {
    locks
      .request(blockDbName(name), { signal }, () => {
        // The wait shows in the page's performance timeline (bench:web prints it).
        performance.measure('hearth: replica lock', { start })
        return new Promise<void>((release) => resolve(release))
      })
      .catch((error: unknown) =>
        reject(
          signal.aborted
            ? new HearthError(
                'REPLICA_IN_USE',
                'This household is open in another tab or window of this browser. Close it there, or carry on in that one.',
              )
            : error,
        ),
      )
  })
}
