/**
 * Notifications in Chromium, through the real server: a large transaction another member records
 * raises a notification that syncs to the owner's device, shows in the bell and the feed, is
 * marked read and then dismissed offline (reaching the server when the browser is back online);
 * a preference switched in the kinds × channels table; and Web Push: the browser asked to
 * subscribe through the app, the server's web-push send to a push service on loopback, and that
 * push delivered to the app's service worker, which shows it.
 *
 * Headless Chromium refuses `pushManager.subscribe` ("Registration failed - permission denied"):
 * it has no push service (Chromium's is Google's, which this machine cannot reach either). So the
 * subscription the server sends to is made here with a P-256 key pair as a browser makes one,
 * the push service is a loopback HTTPS server that keeps the encrypted body, and what it received
 * is decrypted and delivered to the page's service worker through the DevTools protocol
 * (`ServiceWorker.deliverPushMessage`), as Chromium's push service client would.
 */
import { createECDH, randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
// @ts-expect-error http_ece (web-push's own encryption library) ships no types.
import ece from 'http_ece'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import webpush from 'web-push'
import { expectOk } from '../src/answers.ts'
import { chromiumPath } from '../src/browser.ts'
import { useTestServer } from '../src/index.ts'
import { signInToApp } from './app-sign-in.ts'
import { useWebBrowser } from './web-build.ts'

/** A push service on loopback, speaking HTTPS with a certificate the server (this process) trusts. */
const pushes: Buffer[] = []
const tls = {
  key: readFileSync(new URL('../http/fixtures/push-service.key', import.meta.url)),
  cert: readFileSync(new URL('../http/fixtures/push-service.crt', import.meta.url)),
}
https.globalAgent.options.ca = tls.cert
const pushService = https.createServer(tls, (req, res) => {
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', () => {
    pushes.push(Buffer.concat(chunks))
    res.writeHead(201)
    res.end()
  })
})
let pushUrl = ''
beforeAll(async () => {
  await new Promise<void>((resolve) => pushService.listen(0, '127.0.0.1', resolve))
  pushUrl = `https://127.0.0.1:${(pushService.address() as AddressInfo).port}/push/`
})
afterAll(async () => {
  pushService.closeAllConnections()
  await new Promise((resolve) => pushService.close(resolve))
})

const vapid = webpush.generateVAPIDKeys()
// A store of its own: another server's outbox worker on a shared store would generate these
// notifications with its own channels (no push).
const server = useTestServer(
  {
    notifications: {
      smtpFrom: 'Hearth <hearth@example.test>',
      vapid: { publicKey: vapid.publicKey, privateKey: vapid.privateKey, subject: 'mailto:ops@example.test' },
    },
  },
  { isolated: true },
)
const browser = useWebBrowser()

describe.skipIf(!chromiumPath())('notifications in Chromium', () => {
  it('shows a notification a write raised, marks it read, and dismisses it offline', {
    timeout: 300_000,
  }, async () => {
    const owner = await server.newOwner()
    const member = await server.newMember(owner)
    const h = `/households/${owner.householdId}`
    const checking = await expectOk(owner.api.post(`${h}/accounts`, { name: 'Checking', type: 'cash' }))

    const context = await browser().newContext({ viewport: { width: 1280, height: 1000 } })
    const page = await context.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (error) => pageErrors.push(error.message))
    try {
      await signInToApp(page, { url: server.url, token: owner.api.token!, device: 'Bell' })
      const bell = page.getByRole('link', { name: /^Notifications/ })
      await bell.waitFor({ timeout: 120_000 })
      expect(await bell.getAttribute('data-unread')).toBe('0')

      // Another member records a large transaction: the owner hears of it, on this device too.
      await expectOk(
        member.api.post(`${h}/transactions`, {
          accountId: checking.id,
          date: new Date().toISOString().slice(0, 10),
          amountCents: -123_456,
          payeeName: 'Appliance Store',
        }),
      )
      // The outbox worker writes the notification after the transaction's commit.
      await server.outboxSettled(owner.householdId, 60_000)
      const [raised] = (await expectOk(owner.api.get('/notifications'))).items
      expect(raised).toMatchObject({ kind: 'large_transaction', readAt: null })
      await expect.poll(() => bell.getAttribute('data-unread'), { timeout: 60_000 }).toBe('1')
      expect(await bell.textContent()).toContain('Notifications, 1 unread')

      await bell.click()
      await page.getByRole('heading', { name: 'Notifications', level: 1 }).waitFor()
      const item = page.locator(`li[data-notification="${raised.id}"]`)
      await item.waitFor({ timeout: 30_000 })
      expect(await item.locator('.feed-title').textContent()).toContain(raised.title)
      expect(await item.textContent()).toContain(raised.body)

      await item.getByRole('button', { name: `Mark “${raised.title}” read` }).click()
      await expect.poll(() => item.getAttribute('data-read'), { timeout: 30_000 }).toBe('true')
      await expect.poll(() => bell.getAttribute('data-unread'), { timeout: 30_000 }).toBe('0')
      await expect
        .poll(
          async () => (await expectOk(owner.api.get('/notifications?includeRead=true'))).items[0].readAt,
          {
            timeout: 60_000,
          },
        )
        .not.toBeNull()

      // Dismissed with the network off: it leaves the feed at once, and the server hears of it later.
      await context.setOffline(true)
      await expect
        .poll(() => page.locator('.sync-badge').getAttribute('data-state'), { timeout: 60_000 })
        .toBe('offline')
      await item.getByRole('button', { name: `Dismiss “${raised.title}”` }).click()
      await item.waitFor({ state: 'detached', timeout: 30_000 })
      await page.getByText('Nothing new.').waitFor()
      expect(
        (await expectOk(owner.api.get('/notifications?includeRead=true'))).items[0].dismissedAt,
      ).toBeNull()
      await context.setOffline(false)
      await expect
        .poll(
          async () =>
            (await expectOk(owner.api.get('/notifications?includeRead=true&includeDismissed=true'))).items[0]
              .dismissedAt,
          { timeout: 90_000 },
        )
        .not.toBeNull()

      // A preference switched off in the table is the server's preference.
      const pushLarge = page.getByLabel('A large transaction by Push')
      expect(await pushLarge.isChecked()).toBe(true)
      await pushLarge.uncheck()
      await page
        .getByRole('status')
        .filter({ hasText: 'A large transaction: Push off.' })
        .waitFor({ timeout: 30_000 })
      const prefs = await expectOk(owner.api.get('/notifications/preferences'))
      expect(
        prefs.items.find(
          (p: { kind: string; channel: string }) => p.kind === 'large_transaction' && p.channel === 'push',
        ).enabled,
      ).toBe(false)
      // Email is not set up on this server: its column cannot be switched on, and says why.
      expect(await page.getByLabel('A large transaction by Email').isDisabled()).toBe(true)
      await page.getByText('This server does not send email notifications').waitFor()
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('asks the browser to subscribe, and shows a push the server sent through its service worker', {
    timeout: 300_000,
  }, async () => {
    const owner = await server.newOwner()
    const member = await server.newMember(owner)
    const h = `/households/${owner.householdId}`
    const checking = await expectOk(owner.api.post(`${h}/accounts`, { name: 'Checking', type: 'cash' }))
    await expectOk(
      owner.api.put('/notifications/preferences', {
        items: [{ kind: 'large_transaction', channel: 'push', enabled: true, lockScreenDetails: true }],
      }),
    )

    const context = await browser().newContext({ viewport: { width: 1280, height: 1000 } })
    await context.grantPermissions(['notifications'], { origin: server.url })
    const page = await context.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (error) => pageErrors.push(error.message))
    try {
      await signInToApp(page, { url: server.url, token: owner.api.token!, device: 'Push' })
      await page.getByRole('link', { name: /^Notifications/ }).click({ timeout: 120_000 })
      await page.getByRole('heading', { name: 'Push on this browser' }).waitFor({ timeout: 120_000 })

      // The app asks the browser to subscribe with the server's VAPID key. Headless Chromium has
      // no push service and refuses; the app says so in words. (A browser that can subscribe
      // registers the subscription with the server, and the section says push is on.)
      await page.getByRole('button', { name: 'Turn on push on this browser' }).click({ timeout: 30_000 })
      const outcome = page
        .locator('[data-push="on"]')
        .or(page.getByRole('alert').filter({ hasText: 'This browser could not subscribe to push' }))
      await outcome.waitFor({ timeout: 30_000 })

      // The server's own send, to a subscription made as a browser makes one, on a loopback push service.
      const keys = createECDH('prime256v1')
      keys.generateKeys()
      const auth = randomBytes(16).toString('base64url')
      const subscription = await expectOk(
        owner.api.post('/users/me/push-subscriptions', {
          endpoint: `${pushUrl}${owner.userId}`,
          keys: { p256dh: keys.getPublicKey().toString('base64url'), auth },
        }),
      )
      const before = pushes.length
      await expectOk(
        member.api.post(`${h}/transactions`, {
          accountId: checking.id,
          date: new Date().toISOString().slice(0, 10),
          amountCents: -250_000,
          payeeName: 'Roofer',
        }),
      )
      await expect.poll(() => pushes.length, { timeout: 60_000 }).toBeGreaterThan(before)
      const payload = ece
        .decrypt(pushes.at(-1)!, { version: 'aes128gcm', privateKey: keys, authSecret: auth })
        .toString('utf8')
      const [raised] = (await expectOk(owner.api.get('/notifications'))).items
      expect(JSON.parse(payload)).toMatchObject({ id: raised.id, title: raised.title, body: raised.body })

      // That push, delivered to the app's service worker: it shows the notification and tells the page.
      const scope = `${server.url}/app/`
      await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined))
      const cdp = await context.newCDPSession(page)
      const registrations: { registrationId: string; scopeURL: string; isDeleted: boolean }[] = []
      cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => registrations.push(...e.registrations))
      await cdp.send('ServiceWorker.enable')
      await expect
        .poll(() => registrations.find((r) => r.scopeURL === scope && !r.isDeleted), { timeout: 30_000 })
        .toBeDefined()
      const { registrationId } = registrations.find((r) => r.scopeURL === scope && !r.isDeleted)!
      await cdp.send('ServiceWorker.deliverPushMessage', {
        origin: server.url,
        registrationId,
        data: payload,
      })
      // The page hears of it once the system notification is up (or with the reason it is not).
      const received = page.locator(`[data-push-received="${raised.title}"]`)
      await received.waitFor({ timeout: 30_000 })
      expect(await received.getAttribute('data-push-shown'), (await received.textContent()) ?? '').toBe(
        'true',
      )
      await expect
        .poll(
          () =>
            page.evaluate(async () =>
              (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => [n.title, n.body]),
            ),
          { timeout: 30_000 },
        )
        .toContainEqual([raised.title, raised.body])

      // Signing out: this browser stops getting the person's pushes, so the next person on a shared
      // browser does not see them. (The browser remembers its subscription as the app keeps it
      // after subscribing, which headless Chromium cannot do.)
      await page.evaluate((kept) => localStorage.setItem('hearth.pushSubscription', JSON.stringify(kept)), {
        id: subscription.id,
        endpoint: subscription.endpoint,
      })
      await page.getByRole('button', { name: 'Sign out' }).click()
      await expect
        .poll(
          async () =>
            (
              await server.store.db
                .selectFrom('push_subscriptions')
                .select('id')
                .where('id', '=', subscription.id)
                .execute()
            ).length,
          { timeout: 30_000 },
        )
        .toBe(0)
      expect(await page.evaluate(() => localStorage.getItem('hearth.pushSubscription'))).toBeNull()
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
