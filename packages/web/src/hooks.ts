import type { Hearth, QueryName, SyncStatus } from '@hearth/client'
import { useEffect, useState } from 'preact/hooks'
import { recall, remember } from './screen-cache.ts'

type Queries = Hearth['query']
/** A query's arguments, by its `noun.verb` name. */
export type QueryArgs<K extends QueryName> = K extends `${infer N extends keyof Queries & string}.${infer V}`
  ? V extends keyof Queries[N]
    ? Queries[N][V] extends (args?: infer A) => unknown
      ? A
      : never
    : never
  : never
/** A query's result, by its `noun.verb` name. */
export type QueryResult<K extends QueryName> =
  K extends `${infer N extends keyof Queries & string}.${infer V}`
    ? V extends keyof Queries[N]
      ? Queries[N][V] extends (...args: never[]) => Promise<infer R>
        ? R
        : never
      : never
    : never

/**
 * What a live query answered last, or its refusal, whole: `data` undefined until the first answer,
 * `pending` while neither has come. Screens show `error` and `pending` through `ReadGuard`.
 */
export interface Watched<T> {
  data: T | undefined
  error: unknown
  pending: boolean
}

/**
 * A live query on the replica: the result now and again whenever a change touches what it read.
 * Arguments are compared by value, so `{month}` written inline does not re-subscribe each render.
 * Until the replica answers (or while it is still opening, `hearth` null), the result kept from
 * the last start is shown if there is one (`screen-cache.ts`); each live answer is kept for the next.
 */
export function useWatch<K extends QueryName>(
  hearth: Hearth | null,
  name: K,
  args: QueryArgs<K> | null,
): Watched<QueryResult<K>> {
  const key = args === null ? null : JSON.stringify(args)
  // A replica that learns its key's scopes or gets its first rows answers again: a table the key
  // may not read gets no rows, so no change would re-run a query that read it while unknown.
  const known = useReplicaKnown(hearth)
  const [state, setState] = useState<{ key: string | null; data: unknown; error: unknown }>(() => ({
    key,
    data: args === null ? undefined : recall(name, args),
    error: undefined,
  }))
  useEffect(() => {
    if (key === null || hearth === null) return
    const parsed: unknown = JSON.parse(key)
    let live = true
    const stop = (
      hearth.watch as unknown as (
        n: string,
        a: unknown,
        l: (r: unknown) => void,
        e: (e: unknown) => void,
      ) => () => void
    )(
      name,
      parsed,
      (data) => {
        if (!live) return
        setState({ key, data, error: undefined })
        remember(name, parsed, data)
      },
      (error) => live && setState({ key, data: undefined, error }),
    )
    return () => {
      live = false
      stop()
    }
  }, [hearth, name, key, known])
  if (state.key === key) {
    const data = state.data as QueryResult<K> | undefined
    return { data, error: state.error, pending: data === undefined && state.error === undefined }
  }
  // A result for other arguments is stale: show nothing rather than the wrong account's rows,
  // or what was kept for these arguments.
  const kept = args === null ? undefined : recall<QueryResult<K>>(name, args)
  return { data: kept, error: undefined, pending: kept === undefined }
}

/** What the replica knows of itself, as a string that changes when its scopes or first rows arrive. */
function useReplicaKnown(hearth: Hearth | null): string {
  const read = () =>
    hearth ? `${hearth.sync.status.version !== null}|${hearth.sync.status.missingScopes.join()}` : ''
  const [known, setKnown] = useState(read)
  useEffect(() => {
    if (!hearth) return
    setKnown(read())
    return hearth.on('status', () => setKnown(read()))
  }, [hearth])
  return known
}

/** The sync status, live, including each reconnect attempt (which `status` alone does not report). */
export function useSyncStatus(hearth: Hearth): SyncStatus {
  const [status, setStatus] = useState(hearth.sync.status)
  useEffect(() => {
    setStatus({ ...hearth.sync.status })
    const stops = [
      hearth.on('status', (s) => setStatus({ ...s })),
      hearth.on('reconnecting', () => setStatus({ ...hearth.sync.status })),
    ]
    return () => {
      for (const stop of stops) stop()
    }
  }, [hearth])
  return status
}
