import { loadConfig } from '@hearth/server'
import { describe, expect, it } from 'vitest'
import { totpCodeAt } from '../../server/src/auth/totp.ts'
import { cookieBrowser, issueSetupCode } from '../src/cookie-browser.ts'
import { TEST_DATABASE_URL, useTestServer } from '../src/index.ts'

const server = useTestServer({
  databaseUrl: TEST_DATABASE_URL,
  webhooks: { ...loadConfig({}).webhooks, secretKey: 'second-factors-test-key' },
})

const PASSWORD = 'lantern over the quiet harbour'

/** An owner who set a password with their setup link, signed in on one browser. */
async function ownerWithPassword() {
  const owner = await server.newOwner()
  const email = `factor-${owner.userId.toLowerCase()}@example.org`
  const tab = cookieBrowser(server.url)
  const code = await issueSetupCode(server.store, owner)
  expect((await tab.post('/sign-in-links/redeem', { code, password: PASSWORD, email })).status).toBe(201)
  return { owner, email, tab }
}

/** An owner with an authenticator app turned on: its secret and recovery codes. */
async function ownerWithTotp() {
  const signedIn = await ownerWithPassword()
  const begun = await signedIn.tab.post('/users/me/totp')
  expect(begun.status).toBe(201)
  const confirmed = await signedIn.tab.post('/users/me/totp/confirm', {
    code: totpCodeAt(begun.body.secret, Date.now()),
  })
  expect(confirmed.status).toBe(200)
  return {
    ...signedIn,
    secret: begun.body.secret as string,
    recoveryCodes: confirmed.body.recoveryCodes as string[],
  }
}

describe('an authenticator app (TOTP)', { timeout: 90_000 }, () => {
  it('is shown once, sealed at rest, and counts only after a first valid code', async () => {
    const { owner, email, tab } = await ownerWithPassword()
    const other = cookieBrowser(server.url)
    expect((await other.post('/sessions', { email, password: PASSWORD })).status).toBe(201)

    const begun = await tab.post('/users/me/totp')
    expect(begun.status).toBe(201)
    expect(begun.body.secret).toMatch(/^[A-Z2-7]{32}$/)
    expect(begun.body.uri).toMatch(
      /^otpauth:\/\/totp\/Hearth:.+\?issuer=Hearth&secret=[A-Z2-7]{32}&algorithm=SHA1&digits=6&period=30$/,
    )
    const row = await server.store.db
      .selectFrom('totp_factors')
      .selectAll()
      .where('user_id', '=', owner.userId)
      .executeTakeFirstOrThrow()
    expect(row.secret_sealed).toMatch(/^v1:/)
    expect(row.secret_sealed).not.toContain(begun.body.secret)
    // Not confirmed yet: sign-in asks for no code, and the status says so.
    expect((await tab.get('/users/me/totp')).body).toEqual({
      enrolled: false,
      confirmedAt: null,
      recoveryCodesLeft: 0,
    })
    expect((await cookieBrowser(server.url).post('/sessions', { email, password: PASSWORD })).status).toBe(
      201,
    )

    const wrong = await tab.post('/users/me/totp/confirm', {
      code: '000000' === totpCodeAt(begun.body.secret, Date.now()) ? '111111' : '000000',
    })
    expect(wrong.status).toBe(400)
    expect(wrong.body.code).toBe('TOTP_CODE_INVALID')
    expect((await tab.get('/users/me/totp')).body.enrolled).toBe(false)

    const confirmed = await tab.post('/users/me/totp/confirm', {
      code: totpCodeAt(begun.body.secret, Date.now()),
    })
    expect(confirmed.status).toBe(200)
    expect(confirmed.body.recoveryCodes).toHaveLength(10)
    expect(new Set(confirmed.body.recoveryCodes).size).toBe(10)
    expect(confirmed.body.sessionsEnded).toBeGreaterThanOrEqual(1)
    // Turning it on ended the other browser's session; this one stays.
    expect((await other.get('/users/me')).status).toBe(401)
    expect((await tab.get('/users/me')).status).toBe(200)
    expect((await tab.get('/users/me/totp')).body).toMatchObject({ enrolled: true, recoveryCodesLeft: 10 })
    const stored = await server.store.db
      .selectFrom('recovery_codes')
      .select('code_hash')
      .where('user_id', '=', owner.userId)
      .execute()
    expect(stored).toHaveLength(10)
    for (const code of confirmed.body.recoveryCodes) {
      expect(stored.map((r) => r.code_hash)).not.toContain(code)
    }
    const again = await tab.post('/users/me/totp')
    expect(again.status).toBe(409)
    expect(again.body.code).toBe('TOTP_ALREADY_ENROLLED')
  })

  it('asks for a code after the password, takes one within ±1 step, and each code once', async () => {
    const { email, secret } = await ownerWithTotp()
    const tab = cookieBrowser(server.url)
    const asked = await tab.post('/sessions', { email, password: PASSWORD })
    expect(asked.status).toBe(401)
    expect(asked.body.code).toBe('SECOND_FACTOR_REQUIRED')
    expect(tab.cookie).toBeUndefined()

    const stale = await tab.post('/sessions', {
      email,
      password: PASSWORD,
      totpCode: totpCodeAt(secret, Date.now() - 120_000),
    })
    expect(stale.status).toBe(401)
    expect(stale.body.code).toBe('TOTP_CODE_INVALID')
    const ahead = await tab.post('/sessions', {
      email,
      password: PASSWORD,
      totpCode: totpCodeAt(secret, Date.now() + 120_000),
    })
    expect(ahead.body.code).toBe('TOTP_CODE_INVALID')
    // A wrong password with a right code is still a wrong password.
    const next = totpCodeAt(secret, Date.now() + 30_000)
    const badPassword = await tab.post('/sessions', { email, password: `${PASSWORD}!`, totpCode: next })
    expect(badPassword.body.code).toBe('UNAUTHENTICATED')
    expect(tab.cookie).toBeUndefined()

    // The next step's code (an authenticator's clock a little ahead) signs in.
    const inside = await tab.post('/sessions', { email, password: PASSWORD, totpCode: next })
    expect(inside.status).toBe(201)
    expect((await tab.get('/users/me')).status).toBe(200)
    const replayed = await cookieBrowser(server.url).post('/sessions', {
      email,
      password: PASSWORD,
      totpCode: next,
    })
    expect(replayed.status).toBe(401)
    expect(replayed.body.code).toBe('TOTP_CODE_USED')
    // A code of an earlier step than the last one used is refused too.
    const earlier = await cookieBrowser(server.url).post('/sessions', {
      email,
      password: PASSWORD,
      totpCode: totpCodeAt(secret, Date.now() - 30_000),
    })
    expect(earlier.status).toBe(401)
    expect(['TOTP_CODE_USED', 'TOTP_CODE_INVALID']).toContain(earlier.body.code)
  })

  it('takes each recovery code once, in place of a code', async () => {
    const { owner, email, recoveryCodes } = await ownerWithTotp()
    const first = recoveryCodes[0]!
    const tab = cookieBrowser(server.url)
    const used = await tab.post('/sessions', { email, password: PASSWORD, recoveryCode: first.toUpperCase() })
    expect(used.status).toBe(201)
    const again = await cookieBrowser(server.url).post('/sessions', {
      email,
      password: PASSWORD,
      recoveryCode: first,
    })
    expect(again.status).toBe(401)
    expect(again.body.code).toBe('RECOVERY_CODE_USED')
    const unknown = await cookieBrowser(server.url).post('/sessions', {
      email,
      password: PASSWORD,
      recoveryCode: 'aaaaa-bbbbb',
    })
    expect(unknown.body.code).toBe('RECOVERY_CODE_INVALID')
    expect((await tab.get('/users/me/totp')).body.recoveryCodesLeft).toBe(9)

    // New codes need proof; the old ones stop working.
    const refused = await tab.post('/users/me/totp/recovery-codes', { password: 'not my password at all' })
    expect(refused.status).toBe(401)
    const fresh = await tab.post('/users/me/totp/recovery-codes', { password: PASSWORD })
    expect(fresh.status).toBe(200)
    expect(fresh.body.recoveryCodes).toHaveLength(10)
    const old = await cookieBrowser(server.url).post('/sessions', {
      email,
      password: PASSWORD,
      recoveryCode: recoveryCodes[1],
    })
    expect(old.body.code).toBe('RECOVERY_CODE_INVALID')
    const rows = await server.store.db
      .selectFrom('recovery_codes')
      .select('id')
      .where('user_id', '=', owner.userId)
      .execute()
    expect(rows).toHaveLength(10)
  })

  it('is removed with the password or a code, ending the other sessions', async () => {
    const { email, tab, secret, recoveryCodes } = await ownerWithTotp()
    const other = cookieBrowser(server.url)
    expect(
      (await other.post('/sessions', { email, password: PASSWORD, recoveryCode: recoveryCodes[0] })).status,
    ).toBe(201)
    const wrong = await tab.post('/users/me/totp/remove', { password: 'not my password at all' })
    expect(wrong.status).toBe(401)
    const badCode = await tab.post('/users/me/totp/remove', {
      code: totpCodeAt(secret, Date.now() - 300_000),
    })
    expect(badCode.status).toBe(401)
    expect(badCode.body.code).toBe('TOTP_CODE_INVALID')
    expect((await tab.get('/users/me/totp')).body.enrolled).toBe(true)
    expect((await other.get('/users/me')).status).toBe(200)

    const removed = await tab.post('/users/me/totp/remove', { code: totpCodeAt(secret, Date.now() + 30_000) })
    expect(removed.status).toBe(200)
    expect(removed.body.sessionsEnded).toBe(1)
    expect((await other.get('/users/me')).status).toBe(401)
    expect((await tab.get('/users/me/totp')).body.enrolled).toBe(false)
    expect((await cookieBrowser(server.url).post('/sessions', { email, password: PASSWORD })).status).toBe(
      201,
    )
    expect((await tab.post('/users/me/totp/remove', { password: PASSWORD })).status).toBe(404)
  })
})

describe('wrong passwords for one account', () => {
  it('tell its person, once in the window, how many and from where', { timeout: 90_000 }, async () => {
    const { owner, email } = await ownerWithPassword()
    const toldOf = async () =>
      (await owner.api.get('/notifications')).body.items.filter(
        (n: { kind: string }) => n.kind === 'sign_in_failures',
      )
    for (let i = 0; i < 4; i++) {
      expect(
        (await cookieBrowser(server.url).post('/sessions', { email, password: `wrong guess ${i}` })).status,
      ).toBe(401)
    }
    expect(await toldOf()).toEqual([])
    expect(
      (await cookieBrowser(server.url).post('/sessions', { email, password: 'wrong guess 4' })).status,
    ).toBe(401)
    // Written before the refusal was answered.
    expect(await toldOf()).toHaveLength(1)
    const [told] = await toldOf()
    expect(told.body).toMatch(
      /^5 wrong passwords were tried for your account within 15 minutes, from 127\.0\.0\.1\b/,
    )
    expect(told.subject).toEqual({ type: 'signIn', userId: owner.userId })
    for (let i = 5; i < 8; i++) {
      expect(
        (await cookieBrowser(server.url).post('/sessions', { email, password: `wrong guess ${i}` })).status,
      ).toBe(401)
    }
    expect(await toldOf()).toHaveLength(1)
    // The right password is still taken, and is no failure.
    expect((await cookieBrowser(server.url).post('/sessions', { email, password: PASSWORD })).status).toBe(
      201,
    )
  })
})
