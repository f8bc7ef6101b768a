import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { tryLock, unlock } from 'fs-native-extensions'

/** Thrown when another live process holds the data folder. */
export class DataDirLockedError extends Error {
  /** The holder's pid as it wrote it into the lock file, for the message only; null if unreadable. */
  readonly pid: number | null
  constructor(dir: string, pid: number | null) {
    super(
      `The data folder ${dir} is in use by another Hearth process${pid === null ? '' : ` (pid ${pid})`}. ` +
        'Stop that process, or give this one another folder (HEARTH_DATA_DIR for a server, `store` for a device).',
    )
    this.name = 'DataDirLockedError'
    this.pid = pid
  }
}

const LOCK_FILE = 'hearth.lock'

/**
 * Takes an exclusive operating-system lock on a data folder (an open-file-description `fcntl`
 * lock on Linux, `flock` on macOS, `LockFileEx` on Windows), held through an open file for as
 * long as the store is open. PGlite has no guard of its own, and two writers on one folder
 * corrupt it. The kernel drops the lock when the holder's file is closed, which happens when
 * its process dies however it dies, so no pid is trusted: a killed device restarts at once on
 * its folder, and a live holder is never taken over, whatever pid namespace it runs in. A second
 * lock in the same process is refused too. Returns the release function.
 */
export function lockDataDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true })
  const path = join(dir, LOCK_FILE)
  const fd = openSync(path, 'a+')
  let granted = false
  try {
    granted = tryLock(fd)
  } catch (error) {
    closeSync(fd)
    throw error
  }
  if (!granted) {
    closeSync(fd)
    throw new DataDirLockedError(dir, readHolder(path))
  }
  // The pid is only for the message a second process shows; the lock is the open file.
  ftruncateSync(fd, 0)
  writeSync(fd, String(process.pid))
  let released = false
  return () => {
    if (released) return
    released = true
    // The file stays: removing it would let a newcomer lock a fresh file beside a waiting opener.
    unlock(fd)
    closeSync(fd)
  }
}

function readHolder(path: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8'), 10)
    return Number.isInteger(pid) && pid > 0 ? pid : null
  } catch {
    return null
  }
}
