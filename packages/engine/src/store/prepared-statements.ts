/**
 * Which statements both stores keep prepared (`PreparedClient` on PostgreSQL, `PreparedPGlite`
 * on PGlite), so the two prepare the same statements and plan them alike.
 */

/** Statements a connection keeps prepared at most; beyond it, text is parsed and planned each time. */
export const MAX_PREPARED = 500
/** Longer statements (bulk inserts with many rows) vary with their input: not worth keeping. */
const MAX_PREPARED_LENGTH = 4_000
/**
 * Nor statements with more values than this: a list of ids (`in ($2, …, $501)`) that a bulk
 * write sends again and again would get PostgreSQL's generic plan after five runs, blind to how
 * many rows the household or account holds (an import's check of 500 imported ids against a
 * 100,000-row account went from 3 ms to 120-190 ms once it did; bench:rules).
 */
const MAX_PREPARED_VALUES = 64
/** Only these can be prepared by name; `begin`, `commit` and DDL go as they are. */
const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i

/** Whether a statement can be prepared by name at all. */
export function isPreparable(text: string): boolean {
  return PREPARABLE.test(text)
}

/**
 * A comment a statement carries to be planned with its values every time, never kept prepared:
 * one whose best plan depends on how many rows a queue holds right now. Kept prepared, the
 * webhook claim ran five times on an empty queue, PostgreSQL settled on a generic plan for it,
 * and with ten thousand deliveries queued one claim then ran for minutes on PGlite.
 */
export const PLAN_EACH_TIME = '/* plan each time */'

/** Whether a statement is worth keeping prepared: one that does not vary with its input. */
export function worthPreparing(text: string, valueCount: number): boolean {
  return (
    valueCount <= MAX_PREPARED_VALUES &&
    text.length <= MAX_PREPARED_LENGTH &&
    isPreparable(text) &&
    !text.includes(PLAN_EACH_TIME)
  )
}

/**
 * Whether an error says a prepared statement no longer fits the schema (DDL since it was
 * prepared: "cached plan must not change result type") or is gone. Both stores' prepared
 * statements then prepare afresh.
 */
export function isStaleStatement(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string }
  return code === '26000' || (code === '0A000' && /cached plan/.test(String(message)))
}
