import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { errorMessage } from '../../format.ts'
import type { ServerAccess } from '../../server-calls.ts'
import type { ChannelInfo } from './notification-preferences.tsx'
import {
  keptSubscription,
  pushSupported,
  subscribeThisBrowser,
  unsubscribeThisBrowser,
} from './push-browser.ts'

type Kept = Awaited<ReturnType<typeof keptSubscription>>

/**
 * Push on this browser: subscribe it through the service worker with the server's VAPID key, or
 * stop; says why not when the server has no push or the browser cannot; shows the last push the
 * service worker received while the app is open.
 */
export function PushSection(props: { access: ServerAccess; push: ChannelInfo | undefined }) {
  const [kept, setKept] = useState<Kept | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [received, setReceived] = useState<{ title: string; at: string; error: string | null } | null>(null)
  const supported = pushSupported()

  useEffect(() => {
    if (!supported) return
    keptSubscription().then(setKept, () => setKept(null))
    const onMessage = (event: MessageEvent) => {
      const data = event.data as {
        type?: string
        notification?: { title?: string }
        shown?: boolean
        error?: string
      } | null
      if (data?.type === 'hearth.push')
        setReceived({
          title: data.notification?.title ?? '',
          at: new Date().toLocaleTimeString(),
          error: data.shown === false ? (data.error ?? 'unknown error') : null,
        })
    }
    navigator.serviceWorker.addEventListener('message', onMessage)
    return () => navigator.serviceWorker.removeEventListener('message', onMessage)
  }, [supported])

  const run = async (work: () => Promise<Kept>) => {
    setBusy(true)
    setError(null)
    try {
      setKept(await work())
    } catch (e) {
      setError(errorMessage(e))
    } finally {
      setBusy(false)
    }
  }

  let body: ComponentChildren
  if (!props.push?.available || !props.push.vapidPublicKey) {
    body = <p class="muted">This server does not send push notifications (it has no VAPID keys set up).</p>
  } else if (!supported) {
    body = <p class="muted">This browser cannot take push notifications.</p>
  } else if (kept === undefined) {
    body = (
      <p class="muted" aria-busy="true">
        Checking this browser…
      </p>
    )
  } else if (kept) {
    body = (
      <>
        <p data-push="on">This browser gets push notifications for the kinds you send by push.</p>
        <button
          type="button"
          disabled={busy}
          onClick={() => run(() => unsubscribeThisBrowser(props.access, kept).then(() => null))}
        >
          Stop push on this browser
        </button>
      </>
    )
  } else {
    const key = props.push.vapidPublicKey
    body = (
      <>
        <p data-push="off">This browser does not get push notifications yet.</p>
        <button
          type="button"
          class="primary"
          disabled={busy}
          onClick={() => run(() => subscribeThisBrowser(props.access, key))}
        >
          Turn on push on this browser
        </button>
      </>
    )
  }
  return (
    <section class="card stack" aria-labelledby="push-title">
      <h2 id="push-title" class="card-title">
        Push on this browser
      </h2>
      {body}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {received && (
        <p
          role="status"
          data-push-received={received.title}
          data-push-shown={String(received.error === null)}
        >
          Push received on this browser at {received.at}: {received.title}
          {received.error !== null &&
            ` (the browser did not show it as a system notification: ${received.error})`}
        </p>
      )}
    </section>
  )
}
