import type { Hearth, QueryName, SyncStatus } from '@hearth/client'
import { useEffect, useState } from 'preact/hooks'

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

/** What a live query answered last, or its refusal; `undefined` until the first answer. */
export interface Watched<T> {
  data: T | undefined
  error: unknown
}

/**
 * A live query on the replica: the result now and again whenever a change touches what it read.
 * Arguments are compared by value, so `{month}` written inline does not re-subscribe each render.
 */
export function useWatch<K extends QueryName>(
  hearth: Hearth,
  name: K,
  args: QueryArgs<K> | null,
): Watched<QueryResult<K>> {
  const key = args === null ? null : JSON.stringify(args)
  const [state, setState] = useState<{ key: string | null; data: unknown; error: unknown }>({
    key,
    data: undefined,
    error: undefined,
  })
  useEffect(() => {
    if (key === null) return
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
      JSON.parse(key),
      (data) => live && setState({ key, data, error: undefined }),
      (error) => live && setState({ key, data: undefined, error }),
    )
    return () => {
      live = false
      stop()
    }
  }, [hearth, name, key])
  // A result for other arguments is stale: show nothing rather than the wrong account's rows.
  return state.key === key
    ? { data: state.data as QueryResult<K>, error: state.error }
    : { data: undefined, error: undefined }
}

/** The sync status, live. */
export function useSyncStatus(hearth: Hearth): SyncStatus {
  const [status, setStatus] = useState(hearth.sync.status)
  useEffect(() => hearth.on('status', (s) => setStatus({ ...s })), [hearth])
  return status
}
