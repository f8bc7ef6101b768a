/**
 * Why a screen cannot show its data, decided in one place: a read the key may not make, a device
 * offline with no replica yet, a replica still fetching its first rows, a refusal, or a query not
 * answered yet. A screen never shows an empty table in place of any of these.
 */

/** What one live query answered so far (`useWatch`). */
export interface ReadState {
  data: unknown
  error: unknown
}

/** Where this device's replica stands, from the SDK's sync status and the browser. */
export interface ReplicaState {
  /** The server version the replica is at; null before its first rows arrived. */
  version: number | null
  /** Whether the browser has a network and no reconnect attempt has failed yet. */
  reachable: boolean
  /** The refusal that stopped sync, if any (a revoked key, say). */
  stopped: { code: string; message: string } | null
  /** While a snapshot loads: the rows the replica has loaded so far. */
  loadedRows?: number | null
}

/** Why a screen shows no data, or null when it can show what it read. */
export type ReadProblem =
  | { kind: 'scope'; scope: string }
  | { kind: 'offline-empty' }
  | { kind: 'first-sync'; loadedRows: number | null }
  | { kind: 'stopped'; code: string; message: string }
  | { kind: 'error'; code: string | null; message: string }
  | { kind: 'opening' }

/**
 * The first reason the reads cannot be shown. A missing scope comes first (it does not go away by
 * waiting); a replica with no rows yet comes before an answer, which would be empty rather than
 * true; then a refusal; then a read still to answer.
 */
export function readProblem(reads: readonly ReadState[], replica: ReplicaState | null): ReadProblem | null {
  for (const read of reads) {
    const scope = missingScope(read.error)
    if (scope) return { kind: 'scope', scope }
  }
  if (replica && replica.version === null) {
    if (replica.stopped) return { kind: 'stopped', ...replica.stopped }
    return replica.reachable
      ? { kind: 'first-sync', loadedRows: replica.loadedRows ?? null }
      : { kind: 'offline-empty' }
  }
  for (const read of reads) {
    if (read.error !== undefined && read.error !== null) {
      return { kind: 'error', code: codeOf(read.error), message: messageOf(read.error) }
    }
  }
  return reads.some((r) => r.data === undefined) ? { kind: 'opening' } : null
}

/** The scope a refusal names (`INSUFFICIENT_SCOPE` with `requiredScope`), if it is one. */
function missingScope(error: unknown): string | null {
  if (codeOf(error) !== 'INSUFFICIENT_SCOPE') return null
  const e = error as { requiredScope?: unknown; extra?: { requiredScope?: unknown }; message?: unknown }
  const named = e.requiredScope ?? e.extra?.requiredScope
  if (typeof named === 'string') return named
  const inMessage = /scope ([a-z]+:[a-z]+)/.exec(String(e.message ?? ''))
  return inMessage?.[1] ?? 'a read scope'
}

function codeOf(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : null
}

function messageOf(error: unknown): string {
  if (error && typeof error === 'object' && 'message' in error) return String((error as Error).message)
  return String(error)
}
