import { describe, expect, it } from 'vitest'
import { cookieBrowser } from '../src/cookie-browser.ts'
import { TEST_DATABASE_URL, useTestServer } from '../src/index.ts'
import { SoftwareAuthenticator } from '../src/software-authenticator.ts'

const server = useTestServer({ databaseUrl: TEST_DATABASE_URL })

/** An owner, signed in on one browser with their key exchanged for a session, and a passkey they added. */
async function ownerWithPasskey(name = 'Laptop') {
  const owner = await server.newOwner()
  const tab = cookieBrowser(server.url)
  expect((await tab.post('/sessions', { apiKey: owner.api.token })).status).toBe(201)
  const authenticator = new SoftwareAuthenticator(server.url)
  const options = await tab.post('/users/me/passkeys/options')
  expect(options.status).toBe(200)
  const added = await tab.post('/users/me/passkeys', { name, response: authenticator.register(options.body) })
  expect(added.status).toBe(201)
  return { owner, tab, authenticator, passkey: added.body }
}

async function signInOptions() {
  const options = await cookieBrowser(server.url).post('/sessions/passkey/options')
  expect(options.status).toBe(200)
  return options.body
}

describe('passkeys over REST', { timeout: 90_000 }, () => {
  it('adds several, named; lists, renames and removes them; a challenge registers once', async () => {
    const { owner, tab, authenticator, passkey } = await ownerWithPasskey()
    expect(passkey).toMatchObject({ name: 'Laptop', lastUsedAt: null })
    const second = new SoftwareAuthenticator(server.url)
    const options = await tab.post('/users/me/passkeys/options')
    expect(options.body.excludeCredentials).toEqual([expect.objectContaining({ id: authenticator.id })])
    const response = second.register(options.body)
    expect((await tab.post('/users/me/passkeys', { name: 'Phone', response })).status).toBe(201)
    const again = await tab.post('/users/me/passkeys', { name: 'Phone again', response })
    expect(again.status).toBe(400)
    expect(again.body.code).toBe('WEBAUTHN_CHALLENGE_INVALID')
    // Another person's challenge is not yours to answer.
    const other = await server.newOwner()
    const otherTab = cookieBrowser(server.url)
    expect((await otherTab.post('/sessions', { apiKey: other.api.token })).status).toBe(201)
    const theirs = await otherTab.post('/users/me/passkeys/options')
    const stolen = await tab.post('/users/me/passkeys', {
      name: 'Theirs',
      response: new SoftwareAuthenticator(server.url).register(theirs.body),
    })
    expect(stolen.body.code).toBe('WEBAUTHN_CHALLENGE_INVALID')

    const listed = await tab.get('/users/me/passkeys')
    expect(listed.body.items.map((p: { name: string }) => p.name)).toEqual(['Laptop', 'Phone'])
    const renamed = await tab.request('PATCH', `/users/me/passkeys/${passkey.id}`, { name: 'Work laptop' })
    expect(renamed.body.name).toBe('Work laptop')
    const removed = await tab.request('DELETE', `/users/me/passkeys/${passkey.id}`)
    expect(removed.status).toBe(200)
    expect((await tab.request('DELETE', `/users/me/passkeys/${passkey.id}`)).status).toBe(404)
    const gone = await cookieBrowser(server.url).post('/sessions/passkey', {
      response: authenticator.signIn(await signInOptions()),
    })
    expect(gone.status).toBe(401)
    expect(gone.body.code).toBe('PASSKEY_UNKNOWN')
    expect((await owner.api.get('/users/me/passkeys')).body.items).toHaveLength(1)
  })

  it('signs in with no password; a replayed answer, a counter held still and another origin are refused', async () => {
    const { owner, authenticator } = await ownerWithPasskey()
    const tab = cookieBrowser(server.url)
    const answer = authenticator.signIn(await signInOptions())
    const signedIn = await tab.post('/sessions/passkey', { response: answer, deviceName: 'Passkey tab' })
    expect(signedIn.status).toBe(201)
    expect(signedIn.body).toMatchObject({
      userId: owner.userId,
      session: { name: 'Passkey tab', current: true },
    })
    expect((await tab.get('/users/me')).body.id).toBe(owner.userId)

    const replayed = await cookieBrowser(server.url).post('/sessions/passkey', { response: answer })
    expect(replayed.status).toBe(400)
    expect(replayed.body.code).toBe('WEBAUTHN_CHALLENGE_INVALID')
    expect(replayed.setCookie).toBeNull()

    // A fresh challenge signed with the counter it used before: a cloned key, refused.
    const held = await cookieBrowser(server.url).post('/sessions/passkey', {
      response: authenticator.signIn(await signInOptions()),
    })
    expect(held.status).toBe(401)
    expect(held.body.code).toBe('PASSKEY_REFUSED')
    expect(held.body.detail).toMatch(/counter/i)

    authenticator.counter = 5
    const elsewhere = await cookieBrowser(server.url).post('/sessions/passkey', {
      response: authenticator.signIn(await signInOptions(), { origin: 'https://evil.example' }),
    })
    expect(elsewhere.status).toBe(401)
    expect(elsewhere.body.code).toBe('PASSKEY_REFUSED')
    expect(elsewhere.body.detail).toMatch(/origin/i)

    const moved = await cookieBrowser(server.url).post('/sessions/passkey', {
      response: authenticator.signIn(await signInOptions()),
    })
    expect(moved.status).toBe(201)
    const row = await server.store.db
      .selectFrom('passkeys')
      .select(['counter', 'last_used_at'])
      .where('user_id', '=', owner.userId)
      .executeTakeFirstOrThrow()
    expect(Number(row.counter)).toBe(5)
    expect(row.last_used_at).not.toBeNull()

    const garbage = await cookieBrowser(server.url).post('/sessions/passkey', { response: { id: 'x' } })
    expect(garbage.status).toBe(400)
    expect(garbage.body.code).toBe('WEBAUTHN_RESPONSE_INVALID')
  })

  it('hands out at most 60 sign-in challenges a minute to one address', async () => {
    let handedOut = 0
    let refused: { status: number; body: { code: string } } | undefined
    for (let i = 0; i < 200 && !refused; i++) {
      const answer = await cookieBrowser(server.url).post('/sessions/passkey/options')
      if (answer.status === 200) handedOut++
      else refused = answer
    }
    expect(refused?.status).toBe(429)
    expect(refused?.body.code).toBe('RATE_LIMITED')
    // The tests above started a few from this address already.
    expect(handedOut).toBeGreaterThan(0)
    expect(handedOut).toBeLessThanOrEqual(60)
  })
})
