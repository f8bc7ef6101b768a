/**
 * A passkey in place of a password where a person first signs in (issue 37): at the setup link
 * (and a reset link, the same route) and at an invitation's sign-up. Through the real server, with
 * the software authenticator answering as a browser would.
 */
import { isoBase64URL } from '@simplewebauthn/server/helpers'
import { describe, expect, it } from 'vitest'
import { cookieBrowser, issueSetupCode } from '../src/cookie-browser.ts'
import { TEST_DATABASE_URL, type TestMember, useTestServer } from '../src/index.ts'
import { SoftwareAuthenticator } from '../src/software-authenticator.ts'

const server = useTestServer({ databaseUrl: TEST_DATABASE_URL })
const uniqueEmail = () => `passkey-${Math.random().toString(36).slice(2)}@example.org`
const db = () => server.store.db

/** The user a passkey's options were made for (its WebAuthn user handle). */
const userHandleOf = (options: { user: { id: string } }) => isoBase64URL.toUTF8String(options.user.id)

/** What a person's sign-in rows are, to show that a refused redeem changed none. */
async function signInRowsOf(userId: string) {
  const count = async (table: 'passkeys' | 'passwords' | 'api_keys') =>
    (await db().selectFrom(table).select('user_id').where('user_id', '=', userId).execute()).length
  const user = await db().selectFrom('users').select('email').where('id', '=', userId).executeTakeFirst()
  return {
    exists: user !== undefined,
    email: user?.email ?? null,
    passkeys: await count('passkeys'),
    passwords: await count('passwords'),
    keysAndSessions: await count('api_keys'),
  }
}

async function linkUsed(code: string): Promise<boolean> {
  const { createHash } = await import('node:crypto')
  const row = await db()
    .selectFrom('sign_in_links')
    .select('used_at')
    .where('code_hash', '=', createHash('sha256').update(code).digest('hex'))
    .executeTakeFirstOrThrow()
  return row.used_at !== null
}

async function invitationFor(owner: TestMember) {
  const invited = await owner.api.post(`/households/${owner.householdId}/invitations`, { role: 'member' })
  expect(invited.status).toBe(201)
  return { id: invited.body.id as string, code: invited.body.code as string }
}

async function invitationStatus(owner: TestMember, id: string) {
  const listed = await owner.api.get(`/households/${owner.householdId}/invitations`)
  return listed.body.items.find((i: { id: string }) => i.id === id)?.status
}

/** Signs in with `authenticator`'s passkey on a fresh browser; answers the user signed in. */
async function signInWithPasskey(authenticator: SoftwareAuthenticator): Promise<string> {
  const tab = cookieBrowser(server.url)
  const options = await tab.post('/sessions/passkey/options')
  const signedIn = await tab.post('/sessions/passkey', { response: authenticator.signIn(options.body) })
  expect(signedIn.status).toBe(201)
  return signedIn.body.userId
}

describe('a passkey at the setup link', { timeout: 120_000 }, () => {
  it('makes the passkey, uses the link and signs in, in one step; a refused answer changes nothing', async () => {
    const owner = await server.newOwner()
    const code = await issueSetupCode(server.store, owner)
    const email = uniqueEmail()
    const tab = cookieBrowser(server.url)
    const before = await signInRowsOf(owner.userId)

    const options = await tab.post('/sign-in-links/passkey/options', { code, email })
    expect(options.status).toBe(200)
    expect(userHandleOf(options.body)).toBe(owner.userId)
    expect(options.body.user.name).toBe(email)
    expect(options.body.authenticatorSelection).toMatchObject({ residentKey: 'required' })

    // An answer made at another origin does not verify: nothing changes, the link stays usable.
    const authenticator = new SoftwareAuthenticator(server.url)
    const forged = new SoftwareAuthenticator('https://evil.example').register(options.body)
    const refused = await tab.post('/sign-in-links/redeem', { code, email, passkey: { response: forged } })
    expect(refused.status).toBe(400)
    expect(refused.body.code).toBe('PASSKEY_REFUSED')
    expect(refused.setCookie).toBeNull()
    // A challenge handed out for another link (another person's) is not this link's to take.
    const other = await server.newOwner()
    const otherCode = await issueSetupCode(server.store, other)
    const otherOptions = await cookieBrowser(server.url).post('/sign-in-links/passkey/options', {
      code: otherCode,
    })
    const crossed = await tab.post('/sign-in-links/redeem', {
      code,
      email,
      passkey: { response: authenticator.register(otherOptions.body) },
    })
    expect(crossed.status).toBe(400)
    expect(crossed.body.code).toBe('WEBAUTHN_CHALLENGE_INVALID')
    // Neither a password nor a passkey, or both: said so.
    const neither = await tab.post('/sign-in-links/redeem', { code, email })
    expect(neither.status).toBe(400)
    expect(neither.body.errors).toEqual([expect.objectContaining({ path: 'password', code: 'required' })])
    const both = await tab.post('/sign-in-links/redeem', {
      code,
      email,
      password: 'plum tree under snow 42',
      passkey: { response: authenticator.register(options.body) },
    })
    expect(both.status).toBe(400)
    expect(await signInRowsOf(owner.userId)).toEqual(before)
    expect(await linkUsed(code)).toBe(false)

    // The right answer, to the challenge still unused.
    const response = authenticator.register(options.body)
    const redeemed = await tab.post('/sign-in-links/redeem', {
      code,
      email,
      deviceName: 'Setup tab',
      passkey: { response, name: 'Laptop' },
    })
    expect(redeemed.status).toBe(201)
    expect(redeemed.body).toMatchObject({ userId: owner.userId, email, session: { name: 'Setup tab' } })
    expect(redeemed.setCookie).toMatch(/^hearth_session=hss_.*HttpOnly/)
    expect((await tab.get('/users/me')).body.id).toBe(owner.userId)
    const passkeys = await tab.get('/users/me/passkeys')
    expect(passkeys.body.items).toEqual([expect.objectContaining({ name: 'Laptop', lastUsedAt: null })])
    expect(await signInRowsOf(owner.userId)).toMatchObject({ email, passkeys: 1, passwords: 0 })
    expect(await linkUsed(code)).toBe(true)
    // The passkey signs the owner in from now on, with no password.
    expect(await signInWithPasskey(authenticator)).toBe(owner.userId)

    // The same request again (a replay) finds the link used; so does asking for new options.
    const replayed = await cookieBrowser(server.url).post('/sign-in-links/redeem', {
      code,
      email,
      passkey: { response },
    })
    expect(replayed.status).toBe(410)
    expect(replayed.body.code).toBe('LINK_USED')
    expect(replayed.setCookie).toBeNull()
    const again = await tab.post('/sign-in-links/passkey/options', { code })
    expect(again.status).toBe(410)
    expect(again.body.code).toBe('LINK_USED')
  })

  it('refuses an expired link and an expired challenge, naming why, and changes nothing', async () => {
    const owner = await server.newOwner()
    const code = await issueSetupCode(server.store, owner)
    const email = uniqueEmail()
    const tab = cookieBrowser(server.url)
    const authenticator = new SoftwareAuthenticator(server.url)
    const before = await signInRowsOf(owner.userId)

    // A challenge older than its 5 minutes: refused; the link stays usable.
    const stale = await tab.post('/sign-in-links/passkey/options', { code })
    await db()
      .updateTable('webauthn_challenges')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('challenge', '=', stale.body.challenge)
      .execute()
    const late = await tab.post('/sign-in-links/redeem', {
      code,
      email,
      passkey: { response: authenticator.register(stale.body) },
    })
    expect(late.status).toBe(400)
    expect(late.body.code).toBe('WEBAUTHN_CHALLENGE_INVALID')
    expect(await signInRowsOf(owner.userId)).toEqual(before)
    expect(await linkUsed(code)).toBe(false)

    // The link expires between the options and the answer: 410, nothing made.
    const fresh = await tab.post('/sign-in-links/passkey/options', { code })
    expect(fresh.status).toBe(200)
    await db()
      .updateTable('sign_in_links')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('user_id', '=', owner.userId)
      .execute()
    const expired = await tab.post('/sign-in-links/redeem', {
      code,
      email,
      passkey: { response: authenticator.register(fresh.body) },
    })
    expect(expired.status).toBe(410)
    expect(expired.body.code).toBe('LINK_EXPIRED')
    expect(await signInRowsOf(owner.userId)).toEqual(before)
    const noOptions = await tab.post('/sign-in-links/passkey/options', { code })
    expect(noOptions.status).toBe(410)
    expect(noOptions.body.code).toBe('LINK_EXPIRED')

    const unknown = await tab.post('/sign-in-links/passkey/options', { code: 'hsl_nothing' })
    expect(unknown.status).toBe(404)
    expect(unknown.body.code).toBe('NOT_FOUND')
  })
})

describe('a passkey at an invitation’s sign-up', { timeout: 120_000 }, () => {
  it('makes the person, their passkey, membership and session in one step; a refused answer changes nothing', async () => {
    const owner = await server.newOwner()
    const invitation = await invitationFor(owner)
    const email = uniqueEmail()
    const tab = cookieBrowser(server.url)
    const options = await tab.post('/invitations/passkey/options', {
      code: invitation.code,
      email,
      name: 'Sam',
    })
    expect(options.status).toBe(200)
    // The person is not made yet: their id, chosen ahead, is the passkey's user handle.
    const chosen = userHandleOf(options.body)
    expect(chosen).toMatch(/^[0-9A-Z]{26}$/)
    expect(options.body.user).toMatchObject({ name: email, displayName: 'Sam' })
    expect(await signInRowsOf(chosen)).toMatchObject({ exists: false })

    const authenticator = new SoftwareAuthenticator(server.url)
    const noEmail = await tab.post('/invitations/redeem', {
      code: invitation.code,
      name: 'Sam',
      passkey: { response: authenticator.register(options.body) },
    })
    expect(noEmail.status).toBe(400)
    expect(noEmail.body.errors).toEqual([expect.objectContaining({ path: 'email' })])
    const forged = await tab.post('/invitations/redeem', {
      code: invitation.code,
      name: 'Sam',
      email,
      passkey: { response: new SoftwareAuthenticator('https://evil.example').register(options.body) },
    })
    expect(forged.status).toBe(400)
    expect(forged.body.code).toBe('PASSKEY_REFUSED')
    // Another invitation's challenge does not answer this one.
    const elsewhere = await tab.post('/invitations/passkey/options', {
      code: (await invitationFor(owner)).code,
    })
    const crossed = await tab.post('/invitations/redeem', {
      code: invitation.code,
      name: 'Sam',
      email,
      passkey: { response: authenticator.register(elsewhere.body) },
    })
    expect(crossed.status).toBe(400)
    expect(crossed.body.code).toBe('WEBAUTHN_CHALLENGE_INVALID')
    // An email someone has: 409, and the transaction leaves the challenge and the invitation as they were.
    const taken = await tab.post('/invitations/redeem', {
      code: invitation.code,
      name: 'Sam',
      email: (await signInRowsOf(owner.userId)).email ?? (await setEmail(owner)),
      passkey: { response: authenticator.register(options.body) },
    })
    expect(taken.status).toBe(409)
    expect(taken.body.code).toBe('EMAIL_TAKEN')
    expect(await invitationStatus(owner, invitation.id)).toBe('pending')
    expect(await signInRowsOf(chosen)).toMatchObject({ exists: false })
    expect(
      await db().selectFrom('users').select('id').where('email', '=', email).executeTakeFirst(),
    ).toBeUndefined()

    const response = authenticator.register(options.body)
    const joined = await tab.post('/invitations/redeem', {
      code: invitation.code,
      name: 'Sam',
      email,
      deviceName: 'Sam’s phone',
      passkey: { response, name: 'Phone' },
    })
    expect(joined.status).toBe(201)
    expect(joined.body).toMatchObject({
      userId: chosen,
      role: 'member',
      apiKey: null,
      session: { current: true, name: 'Sam’s phone' },
    })
    expect(joined.setCookie).toMatch(/^hearth_session=hss_/)
    expect((await tab.get('/households')).body.items.map((h: { id: string }) => h.id)).toEqual([
      owner.householdId,
    ])
    expect((await tab.get('/users/me/passkeys')).body.items).toEqual([
      expect.objectContaining({ name: 'Phone' }),
    ])
    expect(await signInRowsOf(chosen)).toMatchObject({ email, passkeys: 1, passwords: 0, keysAndSessions: 1 })
    expect(await invitationStatus(owner, invitation.id)).toBe('redeemed')
    expect(await signInWithPasskey(authenticator)).toBe(chosen)

    const replayed = await cookieBrowser(server.url).post('/invitations/redeem', {
      code: invitation.code,
      name: 'Sam',
      email,
      passkey: { response },
    })
    expect(replayed.status).toBe(410)
    expect(replayed.body.code).toBe('INVITATION_USED')
    const again = await tab.post('/invitations/passkey/options', { code: invitation.code })
    expect(again.status).toBe(410)
    expect(again.body.code).toBe('INVITATION_USED')

    // A passkey someone has already is refused after the challenge was taken: the transaction
    // rolls back, so the same challenge still answers with another passkey.
    const next = await invitationFor(owner)
    const nextEmail = uniqueEmail()
    const nextOptions = await cookieBrowser(server.url).post('/invitations/passkey/options', {
      code: next.code,
    })
    const sameKey = await cookieBrowser(server.url).post('/invitations/redeem', {
      code: next.code,
      name: 'Kim',
      email: nextEmail,
      passkey: { response: authenticator.register(nextOptions.body) },
    })
    expect(sameKey.status).toBe(409)
    expect(sameKey.body.code).toBe('PASSKEY_ALREADY_ADDED')
    expect(await signInRowsOf(userHandleOf(nextOptions.body))).toMatchObject({ exists: false })
    expect(await invitationStatus(owner, next.id)).toBe('pending')
    const ownKey = await cookieBrowser(server.url).post('/invitations/redeem', {
      code: next.code,
      name: 'Kim',
      email: nextEmail,
      passkey: { response: new SoftwareAuthenticator(server.url).register(nextOptions.body) },
    })
    expect(ownKey.status).toBe(201)
    expect(ownKey.body.userId).toBe(userHandleOf(nextOptions.body))
  })

  it('refuses a passkey from a caller with a key, an expired invitation, and an unknown code', async () => {
    const owner = await server.newOwner()
    const invitation = await invitationFor(owner)
    const options = await cookieBrowser(server.url).post('/invitations/passkey/options', {
      code: invitation.code,
    })
    const joiner = await server.newOwner()
    const withKey = await joiner.api.post('/invitations/redeem', {
      code: invitation.code,
      passkey: { response: new SoftwareAuthenticator(server.url).register(options.body) },
    })
    expect(withKey.status).toBe(400)
    expect(withKey.body.errors).toEqual([expect.objectContaining({ path: 'passkey', code: 'unknown_field' })])

    await db()
      .updateTable('invitations')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', invitation.id)
      .execute()
    const expired = await cookieBrowser(server.url).post('/invitations/redeem', {
      code: invitation.code,
      name: 'Late',
      email: uniqueEmail(),
      passkey: { response: new SoftwareAuthenticator(server.url).register(options.body) },
    })
    expect(expired.status).toBe(410)
    expect(expired.body.code).toBe('INVITATION_EXPIRED')
    expect(await signInRowsOf(userHandleOf(options.body))).toMatchObject({ exists: false })
    const noOptions = await cookieBrowser(server.url).post('/invitations/passkey/options', {
      code: invitation.code,
    })
    expect(noOptions.status).toBe(410)
    expect(noOptions.body.code).toBe('INVITATION_EXPIRED')
    const unknown = await cookieBrowser(server.url).post('/invitations/passkey/options', {
      code: 'hti_nothing',
    })
    expect(unknown.status).toBe(404)
  })

  it('counts wrong codes against their address, and never refuses a right one', async () => {
    const owner = await server.newOwner()
    const invitation = await invitationFor(owner)
    const code = await issueSetupCode(server.store, owner)
    let limited: { status: number; body: { code: string }; headers?: unknown } | undefined
    for (let i = 0; i < 40 && !limited; i++) {
      const path = i % 2 === 0 ? '/invitations/passkey/options' : '/sign-in-links/passkey/options'
      const answer = await cookieBrowser(server.url).post(path, { code: `wrong_${i}` })
      if (answer.status === 429) limited = answer
      else expect(answer.status).toBe(404)
    }
    expect(limited?.body.code).toBe('RATE_LIMITED')
    const right = await cookieBrowser(server.url).post('/invitations/passkey/options', {
      code: invitation.code,
    })
    expect(right.status).toBe(200)
    const rightLink = await cookieBrowser(server.url).post('/sign-in-links/passkey/options', { code })
    expect(rightLink.status).toBe(200)
  })
})

/** Gives `owner` an email, for a test that needs one taken. */
async function setEmail(owner: TestMember): Promise<string> {
  const email = uniqueEmail()
  expect((await owner.api.patch('/users/me', { email })).status).toBe(200)
  return email
}
