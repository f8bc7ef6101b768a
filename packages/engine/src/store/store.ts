import type { Kysely } from 'kysely'
import type { Database } from './database.ts'

/** An open database: the Kysely handle plus what the caller needs to know and release. */
export interface Store {
  db: Kysely<Database>
  kind: 'pglite' | 'postgres'
  /** Where the data lives, for log lines: a folder, `memory://`, or a redacted URL. */
  location: string
  close(): Promise<void>
}
