import type { ComponentType } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { errorMessage } from './format.ts'

const loaders: (() => Promise<unknown>)[] = []

/**
 * A screen whose code is fetched when it is first shown (a chunk of its own, `import()`), so the
 * JavaScript of the first paint holds the shell and the budget only. Until it arrives the screen
 * says it opens; a chunk that cannot be fetched is said in words. The service worker precaches
 * every chunk, so this works offline too.
 */
export function lazyScreen<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let loaded: ComponentType<P> | null = null
  let loading: Promise<ComponentType<P>> | null = null
  const start = () => {
    loading ??= load().then(
      (component) => {
        loaded = component
        return component
      },
      (error) => {
        loading = null
        throw error
      },
    )
    return loading
  }
  loaders.push(start)
  return function LazyScreen(props: P) {
    // The code this instance has, in its own state: had the effect looked at `loaded` instead, a
    // chunk arriving (from `preloadScreens`) between the first render and the effect would have
    // left the screen saying "Opening…" for good, as nothing would render it again.
    const [Screen, setScreen] = useState<ComponentType<P> | null>(() => loaded)
    const [error, setError] = useState<string | null>(null)
    useEffect(() => {
      if (Screen) return
      let live = true
      start().then(
        (component) => live && setScreen(() => component),
        (e) => live && setError(errorMessage(e)),
      )
      return () => {
        live = false
      }
    }, [])
    if (Screen) return <Screen {...props} />
    if (error) {
      return (
        <div class="read-problem card" role="alert" data-problem="screen-load">
          <p class="read-problem-title">This screen could not be loaded.</p>
          <p>{error}</p>
          <p>Reload the page once this device is online again.</p>
        </div>
      )
    }
    return (
      <p class="loading" aria-busy="true">
        Opening…
      </p>
    )
  }
}

/** Fetches every lazy screen's code in the background (once the household is open), so moving between screens does not wait. */
export function preloadScreens(): void {
  for (const load of loaders) load().catch(() => {})
}
