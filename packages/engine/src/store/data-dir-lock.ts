import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'

/** Thrown when another live process holds the data folder. */
export class DataDirLockedError extends Error {
  readonly pid: number
  constructor(dir: string, pid: number) {
    super(
      `The data folder ${dir} is in use by another Hearth process (pid ${pid}). ` +
        'Stop that process, or point HEARTH_DATA_DIR at another folder.',
    )
    this.name = 'DataDirLockedError'
    this.pid = pid
  }
}

const LOCK_FILE = 'hearth.lock'

/**
 * Takes an exclusive, pid-stamped lock on a data folder. PGlite has no guard of its own,
 * and two processes on one folder corrupt it. A lock left by a dead process is taken over.
 * Returns the release function.
 */
export function lockDataDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true })
  const path = join(dir, LOCK_FILE)
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx')
      writeSync(fd, String(process.pid))
      closeSync(fd)
      return () => rmSync(path, { force: true })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const holder = readHolder(path)
      if (holder !== null && holder !== process.pid && isAlive(holder))
        throw new DataDirLockedError(dir, holder)
      if (holder === process.pid) throw new DataDirLockedError(dir, holder)
      rmSync(path, { force: true })
    }
  }
  throw new Error(`Could not take the lock on ${dir}`)
}

function readHolder(path: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8'), 10)
    return Number.isInteger(pid) && pid > 0 ? pid : null
  } catch {
    return null
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
