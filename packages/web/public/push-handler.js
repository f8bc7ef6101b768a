// Web Push in the app's service worker (imported by the generated sw.js): a push from the Hearth
// server is shown as a system notification and handed to the open app; a click opens the feed.
// The payload is the server's (server/src/notifications/channels.ts): {id, householdId, kind,
// subject, title, body?}; without lock-screen details it carries no words beyond the title.
self.addEventListener('push', (event) => {
  let payload = {}
  try {
    payload = event.data ? event.data.json() : {}
  } catch {
    payload = { title: event.data ? event.data.text() : '' }
  }
  const title = payload.title || 'New Hearth notification'
  // The open app is told once the system notification is up, or why it could not be shown.
  event.waitUntil(
    self.registration
      .showNotification(title, {
        body: payload.body || '',
        tag: payload.id || undefined,
        icon: 'icon.svg',
        data: { id: payload.id || null, householdId: payload.householdId || null },
      })
      .then(
        () => ({ shown: true }),
        (error) => ({ shown: false, error: String(error?.message || error) }),
      )
      .then((outcome) =>
        self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((clients) => {
          for (const client of clients)
            client.postMessage({ type: 'hearth.push', notification: { ...payload, title }, ...outcome })
        }),
      ),
  )
})

self.addEventListener('notificationclick', (event) => {
  event.notification.close()
  const url = new URL('notifications', self.registration.scope).href
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((clients) => {
      const open = clients.find((c) => c.url.startsWith(self.registration.scope))
      if (open) return open.focus().then((c) => c?.navigate?.(url))
      return self.clients.openWindow(url)
    }),
  )
})
