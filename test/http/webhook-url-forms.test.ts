import { describe, expect, it } from 'vitest'
import { EMBEDDED_PRIVATE } from '../../server/src/webhooks/embedded-ipv4-forms.ts'
import { type ApiClient, useTestServer } from '../src/index.ts'
import { expectProblem, expectStatus, H } from './catalog-fixture.ts'
import { eventually } from './webhook-receiver.ts'

/** Where each test name points now; a name not listed resolves to a public address. */
const names = new Map<string, string>()
const PUBLIC = '93.184.216.34'

// Its own store: on a shared one, another file's server (with its own resolver) could send these deliveries.
const server = useTestServer(
  {
    webhooks: {
      allowPrivate: false,
      secretKey: 'url-forms-key',
      timeoutMs: 1000,
      retryScheduleMs: [60_000],
      lookup: async (host) => {
        const address = names.get(host) ?? PUBLIC
        return [{ address, family: address.includes(':') ? 6 : 4 }]
      },
    },
  },
  { isolated: true },
)
const SUBS = `${H}/webhooks/subscriptions`

async function subscribe(api: ApiClient, url: string) {
  return expectStatus(await api.post(SUBS, { url, eventTypes: ['tag.created'] }), 201)
}

describe('the webhook URL guard over HTTP, for every IPv6 form that embeds IPv4', () => {
  it('refuses each form on create, as a literal and as what a name resolves to', async () => {
    const { api } = await server.newOwner()
    for (const [i, [form, v4]] of EMBEDDED_PRIVATE.entries()) {
      const literal = expectProblem(
        await api.post(SUBS, { url: `http://[${form}]/hook`, eventTypes: ['*'] }),
        422,
        'WEBHOOK_URL_REFUSED',
      )
      expect(literal.detail, form).toContain(v4)
      names.set(`create-${i}.test`, form)
      const named = expectProblem(
        await api.post(SUBS, { url: `https://create-${i}.test/hook`, eventTypes: ['*'] }),
        422,
        'WEBHOOK_URL_REFUSED',
      )
      expect(named.detail, form).toContain(v4)
    }
    expect(expectStatus(await api.get(SUBS), 200).items).toEqual([])
  })

  it('refuses each form on update, and the subscription keeps its URL', async () => {
    const { api } = await server.newOwner()
    const sub = await subscribe(api, 'https://update.test/hook')
    for (const [i, [form, v4]] of EMBEDDED_PRIVATE.entries()) {
      const literal = expectProblem(
        await api.patch(`${SUBS}/${sub.id}`, { url: `http://[${form}]/hook` }),
        422,
        'WEBHOOK_URL_REFUSED',
      )
      expect(literal.detail, form).toContain(v4)
      names.set(`update-${i}.test`, form)
      expectProblem(
        await api.patch(`${SUBS}/${sub.id}`, { url: `https://update-${i}.test/hook` }),
        422,
        'WEBHOOK_URL_REFUSED',
      )
    }
    const [kept] = expectStatus(await api.get(SUBS), 200).items
    expect(kept.url).toBe('https://update.test/hook')
  })

  it('refuses each form at delivery, when a name accepted as public resolves to it later', async () => {
    const { api } = await server.newOwner()
    const subs: { id: string }[] = []
    for (const [i] of EMBEDDED_PRIVATE.entries())
      subs.push(await subscribe(api, `https://deliver-${i}.test/`))
    // A second passes, so the dispatcher's one-second cache of names holds no earlier answer.
    await new Promise((resolve) => setTimeout(resolve, 1100))
    for (const [i, [form]] of EMBEDDED_PRIVATE.entries()) names.set(`deliver-${i}.test`, form)
    for (const sub of subs) expectStatus(await api.post(`${SUBS}/${sub.id}/test`), 202)
    for (const [i, [form, v4, range]] of EMBEDDED_PRIVATE.entries()) {
      const delivery = await eventually(async () => {
        const page = expectStatus(await api.get(`${SUBS}/${subs[i]!.id}/deliveries?limit=1`), 200)
        return page.items[0]?.lastAttemptAt && page.items[0]
      })
      expect(delivery.responseStatus, form).toBeNull()
      expect(delivery.error, form).toContain(`${v4}, a ${range} address`)
    }
  })

  it('answers 422 WEBHOOK_URL_REFUSED for a URL that is not a URL, on create and update', async () => {
    const { api } = await server.newOwner()
    for (const url of ['not a url', 'example.com/hook', '', 'http//missing-colon']) {
      expectProblem(await api.post(SUBS, { url, eventTypes: ['*'] }), 422, 'WEBHOOK_URL_REFUSED')
    }
    const sub = await subscribe(api, 'https://fine.test/')
    expectProblem(await api.patch(`${SUBS}/${sub.id}`, { url: 'not a url' }), 422, 'WEBHOOK_URL_REFUSED')
    // A url that is not text at all is a malformed field, named as such.
    expectProblem(await api.post(SUBS, { url: 42, eventTypes: ['*'] }), 400, 'VALIDATION_FAILED')
  })
})
