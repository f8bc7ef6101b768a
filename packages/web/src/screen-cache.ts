/**
 * What the first screen showed last time, kept in localStorage so the next start can paint it
 * at once: opening a replica (PGlite's start and its files read from IndexedDB) takes a second
 * or more, reading a few kB of JSON does not. Only small, screen-sized results are kept (the
 * budget month and the sidebar's accounts), each under the sign-in's replica name, and sign-out
 * removes them with the session. A kept result is shown until the replica answers the same
 * query, which replaces it within the first second.
 */

/** The queries whose last result is kept: what the budget screen and the sidebar read. */
const KEPT = new Set(['budgets.get', 'accounts.list'])
/** A result larger than this is not kept (localStorage holds a few MB per origin). */
const MAX_CHARS = 256 * 1024
const PREFIX = 'hearth.screen:'

let namespace: string | null = null

/** Keeps results under `name` (a replica's store name) from now on; null keeps none. */
export function keepScreensOf(name: string | null): void {
  namespace = name
}

function keyOf(query: string, args: unknown): string | null {
  if (namespace === null || !KEPT.has(query)) return null
  return `${PREFIX}${namespace}:${query}:${JSON.stringify(args)}`
}

/** The result kept for a query and its arguments, if any. */
export function recall<T>(query: string, args: unknown): T | undefined {
  const key = keyOf(query, args)
  if (key === null) return undefined
  try {
    const raw = localStorage.getItem(key)
    return raw === null ? undefined : (JSON.parse(raw) as T)
  } catch {
    return undefined
  }
}

/** Keeps a query's latest result (plain JSON only; a result that is not is skipped). */
export function remember(query: string, args: unknown, data: unknown): void {
  const key = keyOf(query, args)
  if (key === null) return
  try {
    const raw = JSON.stringify(data)
    if (raw.length > MAX_CHARS) localStorage.removeItem(key)
    else if (localStorage.getItem(key) !== raw) localStorage.setItem(key, raw)
  } catch {
    // A BigInt in a result, or a full localStorage: the next start paints from the replica.
  }
}

/** Removes every result kept for the replica `name` (at sign-out). */
export function forgetScreens(name: string): void {
  const prefix = `${PREFIX}${name}:`
  const keys: string[] = []
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i)
    if (key?.startsWith(prefix)) keys.push(key)
  }
  for (const key of keys) localStorage.removeItem(key)
}
