import { CompiledQuery, type Kysely, type Transaction } from 'kysely'
import type { Database } from '../database.ts'

/** `copy … from '/dev/blob'` statements and the input each reads, for the PGlite driver. */
const inputs = new WeakMap<CompiledQuery, Blob>()

/** The input of a `copy … from '/dev/blob'` statement handed to `copyFromBlob`, if any. */
export function copyInput(compiled: CompiledQuery): Blob | undefined {
  return inputs.get(compiled)
}

/**
 * Runs `copy <table> (<columns>) from '/dev/blob' with (format csv)` with `csv` as its input, in
 * `tx`. PGlite only: its driver hands the text to PGlite's `/dev/blob` device (a PostgreSQL
 * server has no such file, and would refuse the statement).
 */
export async function copyFromBlob(
  tx: Transaction<Database> | Kysely<Database>,
  statement: string,
  csv: string,
): Promise<void> {
  const compiled = CompiledQuery.raw(statement, [])
  inputs.set(compiled, new Blob([csv]))
  await tx.executeQuery(compiled)
}
