import { useEffect, useState } from 'preact/hooks'
import type { ReadState } from './reads/read-problem.ts'

/** A server read as a screen shows it: what it answered, or its refusal, and again on `reload`. */
export function useServerRead<T>(
  read: () => Promise<T>,
  deps: unknown[],
): ReadState & { data: T | undefined; reload: () => void } {
  const [state, setState] = useState<{ data: T | undefined; error: unknown }>({
    data: undefined,
    error: undefined,
  })
  const [round, setRound] = useState(0)
  useEffect(() => {
    let live = true
    read().then(
      (data) => live && setState({ data, error: undefined }),
      (error) => live && setState({ data: undefined, error }),
    )
    return () => {
      live = false
    }
  }, [...deps, round])
  return { ...state, reload: () => setRound((r) => r + 1) }
}
