import { createECDH, randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { IncomingHttpHeaders } from 'node:http'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import { localDate, SCOPES } from '@hearth/engine'
import { announceBillsDueSoon, announceLowBalances } from '@hearth/server'
// @ts-expect-error http_ece (web-push's own encryption library) ships no types.
import ece from 'http_ece'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import webpush from 'web-push'
import { useSmtpInbox, useTestServer } from '../src/index.ts'
import { expectStatus, H } from './catalog-fixture.ts'
import { createAccount, createTransaction } from './ledger-fixture.ts'
import { eventually } from './webhook-receiver.ts'

const inbox = useSmtpInbox()
const { mail } = inbox

/** A local push service endpoint: it checks the Web Push headers and keeps each encrypted body. */
const pushes: { url?: string; headers: IncomingHttpHeaders; body: Buffer }[] = []
// Push services speak HTTPS only: this one has a self-signed certificate for 127.0.0.1 that the
// server (in this process) is told to trust, as it trusts a real push service's public one.
const tls = {
  key: readFileSync(new URL('./fixtures/push-service.key', import.meta.url)),
  cert: readFileSync(new URL('./fixtures/push-service.crt', import.meta.url)),
}
https.globalAgent.options.ca = tls.cert
const pushService = https.createServer(tls, (req, res) => {
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', () => {
    // A browser that unsubscribed: its push service answers 410 Gone.
    if (req.url?.includes('/gone-')) {
      res.writeHead(410)
      res.end()
      return
    }
    pushes.push({ url: req.url, headers: req.headers, body: Buffer.concat(chunks) })
    res.writeHead(201)
    res.end()
  })
})

const vapid = webpush.generateVAPIDKeys()
let pushUrl = ''
beforeAll(async () => {
  await new Promise<void>((resolve) => pushService.listen(0, '127.0.0.1', resolve))
  pushUrl = `https://127.0.0.1:${(pushService.address() as AddressInfo).port}/push/`
})
afterAll(async () => {
  pushService.closeAllConnections()
  await new Promise((resolve) => pushService.close(resolve))
})

// A store of its own: on a shared PostgreSQL database every other test server's outbox worker may
// claim this server's events and generate their notifications with its own channels (none).
const server = useTestServer(
  {
    get notifications() {
      return {
        ...inbox.settings,
        vapid: {
          publicKey: vapid.publicKey,
          privateKey: vapid.privateKey,
          subject: 'mailto:ops@example.test',
        },
      }
    },
  },
  { isolated: true },
)

describe('notification channels', () => {
  it('says email and push are available, with the VAPID key a browser subscribes with', async () => {
    const { api } = await server.newOwner()
    const prefs = expectStatus(await api.get('/notifications/preferences'), 200)
    expect(prefs.channels).toEqual([
      { channel: 'in_app', available: true },
      { channel: 'email', available: true },
      { channel: 'push', available: true, vapidPublicKey: vapid.publicKey },
    ])
  })

  it('emails a member over SMTP and pushes to their browser, encrypted for it alone', async () => {
    const owner = await server.newOwner()
    const member = await server.newMember(owner)
    expectStatus(
      await owner.api.patch('/users/me', { email: `owner-${owner.userId.toLowerCase()}@example.test` }),
      200,
    )
    expectStatus(
      await owner.api.put('/notifications/preferences', {
        items: [
          { kind: 'large_transaction', channel: 'email', enabled: true },
          { kind: 'large_transaction', channel: 'push', enabled: true, lockScreenDetails: true },
        ],
      }),
      200,
    )
    // The browser's side: a P-256 key pair and an auth secret, as PushManager.subscribe makes.
    const browser = createECDH('prime256v1')
    browser.generateKeys()
    const auth = randomBytes(16).toString('base64url')
    const endpoint = `${pushUrl}${owner.userId}`
    expectStatus(
      await owner.api.post('/users/me/push-subscriptions', {
        endpoint,
        keys: { p256dh: browser.getPublicKey().toString('base64url'), auth },
      }),
      201,
    )
    const account = await createAccount(owner.api)
    await createTransaction(member.api, account.id, { amountCents: -123_456 })

    const message = await eventually(async () =>
      mail.find(
        (m) =>
          m.to.includes(`owner-${owner.userId.toLowerCase()}@example.test`) &&
          // A change of email also mails a verification link (docs/api/sign-in.md).
          !m.raw.includes('Subject: Verify your email'),
      ),
    )
    expect(message.raw).toMatch(/^Subject: Large transaction: -1,234\.56$/m)
    expect(message.raw).toContain('A transaction of -1,234.56 on 2025-03-10 was recorded.')
    expect(message.raw).toMatch(/^From: Hearth <hearth@example\.test>$/m)

    const push = await eventually(async () =>
      pushes.find((p) => p.headers.authorization?.includes(vapid.publicKey)),
    )
    expect(push.headers['content-encoding']).toBe('aes128gcm')
    expect(push.headers.authorization).toMatch(/^vapid t=[\w-]+\.[\w-]+\.[\w-]+, k=/)
    expect(Number(push.headers.ttl)).toBeGreaterThan(0)
    const payload = JSON.parse(
      ece
        .decrypt(push.body, { version: 'aes128gcm', privateKey: browser, authSecret: auth })
        .toString('utf8'),
    )
    expect(payload).toMatchObject({
      householdId: owner.householdId,
      kind: 'large_transaction',
      title: 'Large transaction: -1,234.56',
      subject: { type: 'transaction' },
    })
    // Another key cannot read it.
    const stranger = createECDH('prime256v1')
    stranger.generateKeys()
    expect(() =>
      ece.decrypt(push.body, { version: 'aes128gcm', privateKey: stranger, authSecret: auth }),
    ).toThrow()
  })

  it('keeps the words off the lock screen unless the member asked for them', async () => {
    const owner = await server.newOwner()
    const member = await server.newMember(owner)
    const browser = createECDH('prime256v1')
    browser.generateKeys()
    const auth = randomBytes(16).toString('base64url')
    expectStatus(
      await owner.api.post('/users/me/push-subscriptions', {
        endpoint: `${pushUrl}${owner.userId}`,
        keys: { p256dh: browser.getPublicKey().toString('base64url'), auth },
      }),
      201,
    )
    const before = pushes.length
    const account = await createAccount(owner.api)
    await createTransaction(member.api, account.id, { amountCents: -99_999 })
    await eventually(async () => pushes.length > before)
    const payload = JSON.parse(
      ece
        .decrypt(pushes.at(-1)!.body, { version: 'aes128gcm', privateKey: browser, authSecret: auth })
        .toString('utf8'),
    )
    expect(payload.title).toBe('New Hearth notification')
    expect(payload.body).toBeUndefined()
  })

  it('forgets a browser its push service says is gone, and still pushes to the others', async () => {
    const owner = await server.newOwner()
    const member = await server.newMember(owner)
    expectStatus(
      await owner.api.put('/notifications/preferences', {
        items: [{ kind: 'large_transaction', channel: 'push', enabled: true }],
      }),
      200,
    )
    const subscribe = async (endpoint: string) => {
      const browser = createECDH('prime256v1')
      browser.generateKeys()
      return expectStatus(
        await owner.api.post('/users/me/push-subscriptions', {
          endpoint,
          expirationTime: null,
          keys: {
            p256dh: browser.getPublicKey().toString('base64url'),
            auth: randomBytes(16).toString('base64url'),
          },
        }),
        201,
      )
    }
    const gone = await subscribe(`${pushUrl}gone-${owner.userId}`)
    await subscribe(`${pushUrl}live-${owner.userId}`)
    const account = await createAccount(owner.api)
    await createTransaction(member.api, account.id, { amountCents: -77_777 })
    await eventually(async () => pushes.some((p) => p.url?.includes(`live-${owner.userId}`)))
    const kept = await eventually(async () => {
      const rows = await server.store.db
        .selectFrom('push_subscriptions')
        .select(['id', 'endpoint'])
        .where('user_id', '=', owner.userId)
        .execute()
      return rows.length === 1 ? rows : undefined
    })
    expect(kept.map((r) => r.endpoint)).toEqual([`${pushUrl}live-${owner.userId}`])
    expect(kept[0]!.id).not.toBe(gone.id)
  })

  it('emails and pushes a bill due soon, as the member chose', async () => {
    const owner = await server.newOwner()
    const email = `bills-${owner.userId.toLowerCase()}@example.test`
    expectStatus(await owner.api.patch('/users/me', { email }), 200)
    expectStatus(
      await owner.api.put('/notifications/preferences', {
        items: [
          { kind: 'bill_due_soon', channel: 'email', enabled: true },
          { kind: 'bill_due_soon', channel: 'push', enabled: true, lockScreenDetails: true },
        ],
      }),
      200,
    )
    const browser = createECDH('prime256v1')
    browser.generateKeys()
    const auth = randomBytes(16).toString('base64url')
    expectStatus(
      await owner.api.post('/users/me/push-subscriptions', {
        endpoint: `${pushUrl}bills-${owner.userId}`,
        // As a browser's PushSubscription.toJSON() gives it.
        expirationTime: null,
        keys: { p256dh: browser.getPublicKey().toString('base64url'), auth },
      }),
      201,
    )
    const account = await createAccount(owner.api)
    const today = localDate(new Date(), 'UTC')
    const due = new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)
    expectStatus(
      await owner.api.post(`${H}/recurrences`, {
        name: 'Internet',
        accountId: account.id,
        amountCents: -5_999,
        frequency: 'monthly',
        dayOfMonth: Number(due.slice(8)),
        startDate: due,
      }),
      201,
    )
    await announceBillsDueSoon(server.store, { actor: 'system', scopes: SCOPES, now: new Date() })
    const message = await eventually(async () =>
      mail.find((m) => m.to.includes(email) && !m.raw.includes('Subject: Verify your email')),
    )
    expect(message.raw).toMatch(new RegExp(`^Subject: Internet is due ${due}$`, 'm'))
    expect(message.raw).toContain(`Internet: 59.99 is due on ${due}.`)
    const push = await eventually(async () =>
      pushes.find(
        (p) =>
          p.headers.authorization &&
          p.body.length > 0 &&
          (() => {
            try {
              return (
                JSON.parse(
                  ece
                    .decrypt(p.body, { version: 'aes128gcm', privateKey: browser, authSecret: auth })
                    .toString('utf8'),
                ).kind === 'bill_due_soon'
              )
            } catch {
              return false
            }
          })(),
      ),
    )
    const payload = JSON.parse(
      ece
        .decrypt(push.body, { version: 'aes128gcm', privateKey: browser, authSecret: auth })
        .toString('utf8'),
    )
    expect(payload).toMatchObject({
      householdId: owner.householdId,
      kind: 'bill_due_soon',
      title: `Internet is due ${due}`,
      subject: { type: 'recurrence', date: due },
    })
  })

  it('emails a low balance ahead to a member who asked for it by email', async () => {
    const owner = await server.newOwner()
    const email = `low-${owner.userId.toLowerCase()}@example.test`
    expectStatus(await owner.api.patch('/users/me', { email }), 200)
    expectStatus(
      await owner.api.put('/notifications/preferences', {
        items: [{ kind: 'low_balance_ahead', channel: 'email', enabled: true }],
      }),
      200,
    )
    const today = localDate(new Date(), 'UTC')
    const account = await createAccount(owner.api, {
      name: 'Bills account',
      openingBalanceCents: 10_000,
      openingBalanceDate: today,
    })
    const day = new Date(Date.parse(`${today}T00:00:00Z`) + 4 * 86_400_000).toISOString().slice(0, 10)
    expectStatus(
      await owner.api.post(`${H}/transactions`, { accountId: account.id, date: day, amountCents: -25_050 }),
      201,
    )
    await announceLowBalances(server.store, { actor: 'system', scopes: SCOPES, now: new Date() })
    const message = await eventually(async () =>
      mail.find((m) => m.to.includes(email) && !m.raw.includes('Subject: Verify your email')),
    )
    expect(message.raw).toMatch(new RegExp(`^Subject: Bills account may fall below zero on ${day}$`, 'm'))
    expect(message.raw).toContain(`Bills account is forecast at -150.50 ${account.currency} on ${day}`)
  })
})
