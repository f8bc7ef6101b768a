import { describe, expect, it } from 'vitest'
import {
  apiClient,
  TEST_DATABASE_URL,
  type TestMember,
  type TestServer,
  useTestServer,
} from '../src/index.ts'
import { useTestProvider } from '../src/oidc-test-provider.ts'

// The provider listens first, so both Hearth servers can name it; it is built once they listen.
const idp = await useTestProvider(() => [
  `${server.url}/oidc/callback`,
  `${strict.url}/oidc/callback`,
  `${mailing.url}/oidc/callback`,
])
const { issuer, accounts } = idp
const oidc = { issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, name: 'Test ID' }

const server = useTestServer({ databaseUrl: TEST_DATABASE_URL, oidc: { ...oidc, required: false } })
const strict = useTestServer({ databaseUrl: TEST_DATABASE_URL, oidc: { ...oidc, required: true } })
// A server that sends mail, so people can verify their emails (nothing is mailed in these tests).
const mailing = useTestServer({
  databaseUrl: TEST_DATABASE_URL,
  oidc: { ...oidc, required: false },
  notifications: { smtpUrl: 'smtp://127.0.0.1:9', smtpFrom: 'Hearth <hearth@example.test>' },
})

/** A browser: a cookie jar per host, following redirects as browsers do, sending its server's Origin on writes. */
function browser() {
  const jars = new Map<string, Map<string, string>>()
  const jar = (url: URL) => jars.get(url.host) ?? jars.set(url.host, new Map()).get(url.host)!
  const send = async (method: string, href: string, body?: unknown) => {
    const url = new URL(href)
    const cookies = [...jar(url)].map(([k, v]) => `${k}=${v}`).join('; ')
    const res = await fetch(url, {
      method,
      redirect: 'manual',
      headers: {
        ...(cookies && { cookie: cookies }),
        ...(method !== 'GET' && { origin: url.origin }),
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';')
      const [name, value = ''] = pair!.split('=', 2) as [string, string?]
      const gone = value === '' || attributes.some((a) => /^\s*max-age=0$/i.test(a))
      if (gone) jar(url).delete(name.trim())
      else jar(url).set(name.trim(), value)
    }
    return res
  }
  return {
    send,
    /** Follows redirects from `href` and answers where the browser ends up. */
    async go(href: string): Promise<URL> {
      let url = new URL(href)
      for (let hops = 0; hops < 20; hops++) {
        const res = await send('GET', url.href)
        await res.arrayBuffer()
        const location = res.headers.get('location')
        if (res.status < 300 || res.status >= 400 || !location) return url
        url = new URL(location, url)
      }
      throw new Error(`Too many redirects from ${href}`)
    },
    cookie(host: string, name: string) {
      return jars.get(new URL(host).host)?.get(name)
    },
    async me(on: TestServer) {
      const res = await send('GET', `${on.url}/users/me`)
      return { status: res.status, body: (await res.json()) as { id: string; email: string } }
    },
  }
}

const PASSWORD = 'plum tree under snow 42'

/** A person with an email (and a password), and their account at the provider. */
async function person(on: TestServer = server, verified = true) {
  const owner: TestMember = await on.newOwner()
  const email = `oidc-${owner.userId.toLowerCase()}@example.org`
  await on.store.db.updateTable('users').set({ email }).where('id', '=', owner.userId).execute()
  expect((await owner.api.put('/users/me/password', { newPassword: PASSWORD })).status).toBe(200)
  const subject = `sub-${owner.userId}`
  accounts.set(subject, { email: email.toUpperCase(), email_verified: verified })
  return { ...owner, email, subject }
}

describe('OpenID Connect sign-in', () => {
  it('names the provider to the app', async () => {
    const answer = await apiClient(server.url, null).get('/oidc')
    expect(answer.body).toEqual({ enabled: true, name: 'Test ID', required: false })
  })

  it('signs a person in by the email the provider verified, links the identity, and finds it by it after', async () => {
    const ada = await person()
    idp.signingIn = ada.subject
    const tab = browser()
    const landed = await tab.go(`${server.url}/oidc/sign-in`)
    expect(landed.href).toBe(`${server.url}/app/?signedIn=oidc`)
    expect(tab.cookie(server.url, 'hearth_session')).toMatch(/^hss_/)
    expect(await tab.me(server)).toMatchObject({ status: 200, body: { id: ada.userId, email: ada.email } })
    const linked = await ada.api.get('/users/me/oidc-identities')
    expect(linked.body.items).toEqual([expect.objectContaining({ issuer, email: ada.email.toUpperCase() })])

    // Linked now: the provider's email may change, the identity still signs Ada in.
    accounts.set(ada.subject, { email: 'someone-else@example.org', email_verified: false })
    const later = browser()
    expect((await later.go(`${server.url}/oidc/sign-in`)).href).toBe(`${server.url}/app/?signedIn=oidc`)
    expect((await later.me(server)).body.id).toBe(ada.userId)
    const sessions = await ada.api.get('/sessions')
    expect(sessions.body.items.filter((s: { kind: string }) => s.kind === 'session')).toHaveLength(2)
  }, 60_000)

  it('where the server sends mail, links by email only to a Hearth email its person verified', async () => {
    const cy = await person(mailing)
    idp.signingIn = cy.subject
    expect((await browser().go(`${mailing.url}/oidc/sign-in`)).href).toBe(
      `${mailing.url}/app/?oidcError=OIDC_NO_ACCOUNT`,
    )
    expect((await cy.api.get('/users/me/oidc-identities')).body.items).toEqual([])
    // Verified (as following the mailed link does: test/http/email-verification.test.ts), it links.
    await mailing.store.db
      .updateTable('users')
      .set({ email_verified_at: new Date() })
      .where('id', '=', cy.userId)
      .execute()
    const tab = browser()
    expect((await tab.go(`${mailing.url}/oidc/sign-in`)).href).toBe(`${mailing.url}/app/?signedIn=oidc`)
    expect((await tab.me(mailing)).body.id).toBe(cy.userId)
  }, 60_000)

  it('signs nobody in for an unverified email, an unknown one, or a flow that began elsewhere', async () => {
    const bo = await person(server, false)
    idp.signingIn = bo.subject
    const tab = browser()
    expect((await tab.go(`${server.url}/oidc/sign-in`)).href).toBe(
      `${server.url}/app/?oidcError=OIDC_NO_ACCOUNT`,
    )
    expect(tab.cookie(server.url, 'hearth_session')).toBeUndefined()
    expect((await bo.api.get('/users/me/oidc-identities')).body.items).toEqual([])

    accounts.set('stranger', { email: 'stranger@example.org', email_verified: true })
    idp.signingIn = 'stranger'
    expect((await browser().go(`${server.url}/oidc/sign-in`)).href).toBe(
      `${server.url}/app/?oidcError=OIDC_NO_ACCOUNT`,
    )

    // The provider's answer arriving in a browser that never started the flow: no state to match.
    const ada = await person()
    idp.signingIn = ada.subject
    const started = browser()
    const toProvider = (await started.send('GET', `${server.url}/oidc/sign-in`)).headers.get('location')!
    expect(new URL(toProvider).searchParams.get('code_challenge_method')).toBe('S256')
    const other = browser()
    let url = new URL(toProvider)
    for (;;) {
      const res = await started.send('GET', url.href)
      const location = new URL(res.headers.get('location')!, url)
      if (location.pathname === '/oidc/callback') {
        url = location
        break
      }
      url = location
    }
    expect((await other.go(url.href)).href).toBe(`${server.url}/app/?oidcError=OIDC_FLOW_EXPIRED`)
    // A forged state in the right browser is refused too.
    const forged = new URL(url)
    forged.searchParams.set('state', 'forged')
    expect((await started.go(forged.href)).href).toBe(`${server.url}/app/?oidcError=OIDC_FAILED`)
    expect(started.cookie(server.url, 'hearth_session')).toBeUndefined()
  }, 60_000)

  it('links an identity from a signed-in browser, whatever its email, and signs in with it', async () => {
    const cy = await person()
    accounts.set(cy.subject, { email: 'cy-at-work@example.com', email_verified: true })
    const tab = browser()
    const signedIn = await tab.send('POST', `${server.url}/sessions`, { email: cy.email, password: PASSWORD })
    expect(signedIn.status).toBe(201)
    const start = await tab.send('POST', `${server.url}/users/me/oidc-identities`)
    expect(start.status).toBe(200)
    const { url } = (await start.json()) as { url: string }
    idp.signingIn = cy.subject
    expect((await tab.go(url)).href).toBe(`${server.url}/app/devices?oidcLinked=1`)
    expect((await cy.api.get('/users/me/oidc-identities')).body.items).toEqual([
      expect.objectContaining({ issuer, email: 'cy-at-work@example.com' }),
    ])
    const fresh = browser()
    expect((await fresh.go(`${server.url}/oidc/sign-in`)).href).toBe(`${server.url}/app/?signedIn=oidc`)
    expect((await fresh.me(server)).body.id).toBe(cy.userId)

    // An API key cannot start a link: the identity comes back to a browser's session.
    expect((await cy.api.post('/users/me/oidc-identities')).status).toBe(400)
    expect((await cy.api.delete('/users/me/oidc-identities')).status).toBe(204)
    expect((await cy.api.delete('/users/me/oidc-identities')).status).toBe(404)
    // Unlinked, and its email is not Cy's: it signs nobody in.
    expect((await browser().go(`${server.url}/oidc/sign-in`)).href).toBe(
      `${server.url}/app/?oidcError=OIDC_NO_ACCOUNT`,
    )
  }, 60_000)

  it('refuses password sign-in where the provider is required, and still signs in with it', async () => {
    const dee = await person(strict)
    expect((await apiClient(strict.url, null).get('/oidc')).body.required).toBe(true)
    const password = await apiClient(strict.url, null).post('/sessions', {
      email: dee.email,
      password: PASSWORD,
    })
    expect(password.status).toBe(403)
    expect(password.body.code).toBe('OIDC_REQUIRED')
    const device = await apiClient(strict.url, null).post('/devices', {
      name: 'Phone',
      email: dee.email,
      password: PASSWORD,
    })
    expect(device.body.code).toBe('OIDC_REQUIRED')
    idp.signingIn = dee.subject
    const tab = browser()
    expect((await tab.go(`${strict.url}/oidc/sign-in`)).href).toBe(`${strict.url}/app/?signedIn=oidc`)
    expect((await tab.me(strict)).body.id).toBe(dee.userId)
  }, 60_000)
})

describe('without a provider', () => {
  const plain = useTestServer({ databaseUrl: TEST_DATABASE_URL })
  it('says so, and sends nobody anywhere', async () => {
    expect((await apiClient(plain.url, null).get('/oidc')).body).toEqual({
      enabled: false,
      name: null,
      required: false,
    })
    const start = await apiClient(plain.url, null).get('/oidc/sign-in')
    expect(start.status).toBe(404)
    expect(start.body.code).toBe('OIDC_NOT_CONFIGURED')
  })
})
