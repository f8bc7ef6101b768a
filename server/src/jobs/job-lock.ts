import type { Database, Store } from '@hearth/engine'
import { type Kysely, sql } from 'kysely'

/** What `withLock` did: ran the function, or found the job running elsewhere and left it. */
export type LockOutcome<T> = { ran: true; value: T } | { ran: false }

/** Keeps runs of one job apart across every server sharing a store. */
export interface JobLock {
  /** Runs `fn` holding the job's lock, or answers `{ ran: false }` at once when it is held. */
  withLock<T>(name: string, fn: () => Promise<T>): Promise<LockOutcome<T>>
}

/** The first key of Hearth's advisory locks ("HRTH"), so they never meet another application's. */
const JOB_LOCK_SPACE = 0x48525448

/** The lock that suits the store: advisory locks on PostgreSQL, memory on PGlite. */
export function jobLockFor(store: Store): JobLock {
  return store.kind === 'postgres' ? advisoryJobLock(store.db) : localJobLock()
}

/** One process owns a PGlite folder (it is locked), so a lock in memory keeps its runs apart. */
export function localJobLock(): JobLock {
  const held = new Set<string>()
  return {
    async withLock(name, fn) {
      if (held.has(name)) return { ran: false }
      held.add(name)
      try {
        return { ran: true, value: await fn() }
      } finally {
        held.delete(name)
      }
    },
  }
}

/**
 * A session advisory lock keyed by the job's name, taken without waiting on a connection held
 * for the whole run. Should the server die mid-run, PostgreSQL drops the lock with its session,
 * so no job is ever left locked.
 */
export function advisoryJobLock(db: Kysely<Database>): JobLock {
  return {
    withLock(name, fn) {
      return db.connection().execute(async (connection) => {
        const { rows } = await sql<{ locked: boolean }>`
          select pg_try_advisory_lock(${JOB_LOCK_SPACE}::int, hashtext(${name})) as locked`.execute(
          connection,
        )
        if (!rows[0]?.locked) return { ran: false }
        try {
          return { ran: true, value: await fn() }
        } finally {
          await sql`select pg_advisory_unlock(${JOB_LOCK_SPACE}::int, hashtext(${name}))`.execute(connection)
        }
      })
    },
  }
}
