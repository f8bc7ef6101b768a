import { useEffect, useState } from 'preact/hooks'

/** The app lives under /app/ (the server's static route and the service worker's scope). */
export const BASE = '/app'

/** Where the app is: the path below /app, without a trailing slash ('' is the start). */
function currentPath(): string {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname
  return path.replace(/\/+$/, '')
}

/** Goes to a path below /app (`/budget/2026-11`), keeping the history. */
export function navigate(path: string, replace = false): void {
  const url = `${BASE}${path}`
  if (replace) history.replaceState(null, '', url)
  else history.pushState(null, '', url)
  dispatchEvent(new PopStateEvent('popstate'))
}

/** The current path's segments, re-rendering on navigation. */
export function useRoute(): string[] {
  const [path, setPath] = useState(currentPath)
  useEffect(() => {
    const update = () => setPath(currentPath())
    addEventListener('popstate', update)
    return () => removeEventListener('popstate', update)
  }, [])
  return path.split('/').filter(Boolean).map(decodeURIComponent)
}

/** Props for an in-app link: an href for the browser and a click that stays in the app. */
export function linkTo(path: string) {
  return {
    href: `${BASE}${path}`,
    onClick: (event: MouseEvent) => {
      if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey)
        return
      event.preventDefault()
      navigate(path)
    },
  }
}
