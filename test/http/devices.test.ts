import { DEFAULT_SESSION_SETTINGS, runCli } from '@hearth/server'
import { describe, expect, it } from 'vitest'
import {
  apiClient,
  TEST_DATABASE_URL,
  type TestMember,
  type TestServer,
  useTestServer,
} from '../src/index.ts'

const server = useTestServer({ databaseUrl: TEST_DATABASE_URL })
// Access tokens of two seconds, so a test can outlive several.
const shortLived = useTestServer({
  databaseUrl: TEST_DATABASE_URL,
  sessions: { ...DEFAULT_SESSION_SETTINGS, deviceAccessMs: 2000 },
})

const PASSWORD = 'plum tree under snow 42'

/** An owner with an email and a password to sign devices in with. */
async function ownerWithPassword(on: TestServer = server): Promise<TestMember & { email: string }> {
  const owner = await on.newOwner()
  const email = `device-${owner.userId.toLowerCase()}@example.org`
  await on.store.db.updateTable('users').set({ email }).where('id', '=', owner.userId).execute()
  expect((await owner.api.put('/users/me/password', { newPassword: PASSWORD })).status).toBe(200)
  return { ...owner, email }
}

const signIn = (on: TestServer, body: unknown, headers: Record<string, string> = {}) =>
  apiClient(on.url, null).post('/devices', body, headers)
const refresh = (on: TestServer, refreshToken: string) =>
  apiClient(on.url, null).post('/devices/refresh', { refreshToken })

describe('device credentials', () => {
  it('signs a device in with a password, lists it, and its access token reads as its person', async () => {
    const owner = await ownerWithPassword()
    const wrong = await signIn(server, { name: 'Ada’s phone', email: owner.email, password: `${PASSWORD}!` })
    expect(wrong.status).toBe(401)

    const signed = await signIn(server, {
      name: 'Ada’s phone',
      email: owner.email.toUpperCase(),
      password: PASSWORD,
    })
    expect(signed.status).toBe(201)
    expect(signed.body).toMatchObject({
      userId: owner.userId,
      device: { kind: 'device', name: 'Ada’s phone', clientAddress: expect.any(String), current: true },
      accessToken: expect.stringMatching(/^hda_/),
      refreshToken: expect.stringMatching(/^hdr_/),
    })
    const expiresIn = Date.parse(signed.body.accessTokenExpiresAt) - Date.now()
    expect(expiresIn).toBeGreaterThan(14 * 60_000)
    expect(expiresIn).toBeLessThanOrEqual(15 * 60_000)

    const device = apiClient(server.url, signed.body.accessToken)
    expect((await device.get('/users/me')).body).toMatchObject({ id: owner.userId })
    expect((await device.get(`/households/${owner.householdId}/accounts`)).status).toBe(200)
    const listed = await owner.api.get('/sessions')
    expect(listed.body.items).toContainEqual(
      expect.objectContaining({
        id: signed.body.device.id,
        kind: 'device',
        name: 'Ada’s phone',
        current: false,
      }),
    )
    // Only hashes are stored.
    const row = await server.store.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', signed.body.device.id)
      .executeTakeFirstOrThrow()
    expect(JSON.stringify(row)).not.toContain(signed.body.accessToken)
    const tokens = await server.store.db
      .selectFrom('device_refresh_tokens')
      .selectAll()
      .where('key_id', '=', row.id)
      .execute()
    expect(JSON.stringify(tokens)).not.toContain(signed.body.refreshToken)
  })

  it('rotates both tokens at each refresh, and a reused refresh token signs the device out', async () => {
    const owner = await ownerWithPassword()
    const first = (await signIn(server, { name: 'Tablet', email: owner.email, password: PASSWORD })).body
    const second = await refresh(server, first.refreshToken)
    expect(second.status).toBe(200)
    expect(second.body.device.id).toBe(first.device.id)
    expect(second.body.accessToken).not.toBe(first.accessToken)
    expect(second.body.refreshToken).not.toBe(first.refreshToken)
    expect((await apiClient(server.url, first.accessToken).get('/users/me')).status).toBe(401)
    expect((await apiClient(server.url, second.body.accessToken).get('/users/me')).status).toBe(200)

    // The first refresh token again: someone else holds a copy, so the device ends for both.
    const reused = await refresh(server, first.refreshToken)
    expect(reused.status).toBe(401)
    expect(reused.body.code).toBe('REFRESH_TOKEN_REUSED')
    expect((await apiClient(server.url, second.body.accessToken).get('/users/me')).status).toBe(401)
    const after = await refresh(server, second.body.refreshToken)
    expect(after.status).toBe(401)
    expect(after.body.code).toBe('UNAUTHENTICATED')
    const listed = await owner.api.get('/sessions')
    expect(listed.body.items.map((s: { id: string }) => s.id)).not.toContain(first.device.id)

    const unknown = await refresh(server, 'hdr_not-a-token')
    expect(unknown.status).toBe(401)
    const bad = await apiClient(server.url, null).post('/devices/refresh', { refreshToken: 'x', extra: 1 })
    expect(bad.status).toBe(400)
  })

  it('exchanges an API key for a device as narrow as the key, and refuses an unknown one', async () => {
    const owner = await server.newOwner()
    const readOnly = await server.issueKey(owner.userId, [
      'read:households',
      'read:profile',
      'read:transactions',
    ])
    const signed = await signIn(server, { name: 'Script box', apiKey: readOnly })
    expect(signed.status).toBe(201)
    const device = apiClient(server.url, signed.body.accessToken)
    expect((await device.get('/users/me')).status).toBe(200)
    const write = await device.post(`/households/${owner.householdId}/tags`, { name: 'Nope' })
    expect(write.status).toBe(403)
    expect((await signIn(server, { name: 'Script box', apiKey: 'hth_unknown' })).status).toBe(401)
    expect((await signIn(server, { name: 'No credential' })).status).toBe(401)
  })

  it('exchanges the request’s own session cookie only from a page of this server', async () => {
    const owner = await ownerWithPassword()
    const browser = await apiClient(server.url, null).post(
      '/sessions',
      { email: owner.email, password: PASSWORD },
      { origin: server.url },
    )
    expect(browser.status).toBe(201)
    const cookie = browser.headers.get('set-cookie')!.split(';')[0]!
    const crossSite = await signIn(server, { name: 'Phone' }, { cookie, origin: 'https://evil.example' })
    expect(crossSite.status).toBe(403)
    expect(crossSite.body.code).toBe('CROSS_SITE_REFUSED')
    const sameSite = await signIn(server, { name: 'Phone' }, { cookie, origin: server.url })
    expect(sameSite.status).toBe(201)
    expect(sameSite.body.userId).toBe(owner.userId)
  })

  it('signs out one device, or every one but the caller (sign out everywhere)', async () => {
    const owner = await ownerWithPassword()
    const devices = []
    for (const name of ['Phone', 'Laptop', 'Tablet']) {
      devices.push((await signIn(server, { name, email: owner.email, password: PASSWORD })).body)
    }
    const [phone, laptop, tablet] = devices.map((d) => apiClient(server.url, d.accessToken))
    expect((await owner.api.delete(`/sessions/${devices[0].device.id}`)).status).toBe(204)
    expect((await phone!.get('/users/me')).status).toBe(401)
    expect((await refresh(server, devices[0].refreshToken)).status).toBe(401)

    const everywhere = await laptop!.delete('/sessions')
    expect(everywhere.status).toBe(200)
    expect(everywhere.body.revoked).toBeGreaterThanOrEqual(1)
    expect((await tablet!.get('/users/me')).status).toBe(401)
    expect((await laptop!.get('/users/me')).status).toBe(200)
    expect((await laptop!.delete('/sessions/current')).status).toBe(204)
    expect((await laptop!.get('/users/me')).status).toBe(401)
  })

  it('refuses an access token past its end, and a refresh brings the device back', async () => {
    const owner = await ownerWithPassword(shortLived)
    const signed = (await signIn(shortLived, { name: 'Phone', email: owner.email, password: PASSWORD })).body
    const device = apiClient(shortLived.url, signed.accessToken)
    expect((await device.get('/users/me')).status).toBe(200)
    await new Promise((resolve) =>
      setTimeout(resolve, Date.parse(signed.accessTokenExpiresAt) - Date.now() + 50),
    )
    expect((await device.get('/users/me')).status).toBe(401)
    // Still listed: it can refresh.
    expect((await owner.api.get('/sessions')).body.items).toContainEqual(
      expect.objectContaining({ id: signed.device.id, kind: 'device' }),
    )
    const renewed = await refresh(shortLived, signed.refreshToken)
    expect(renewed.status).toBe(200)
    expect((await apiClient(shortLived.url, renewed.body.accessToken).get('/users/me')).status).toBe(200)
  }, 60_000)

  it('the CLI lists a person’s devices and signs them out everywhere', async () => {
    const owner = await ownerWithPassword()
    const signed = (await signIn(server, { name: 'Kitchen tablet', email: owner.email, password: PASSWORD }))
      .body
    const out: string[] = []
    const io = {
      env: {},
      stdout: (t: string) => out.push(t),
      stderr: (t: string) => out.push(t),
      store: server.store,
    }
    expect(await runCli(['user', 'sessions', '--user', owner.userId], io)).toBe(0)
    expect(out.join('')).toMatch(/device\s+\S+\s+\S+\s+Kitchen tablet/)
    expect(await runCli(['user', 'sessions', '--user', owner.userId, '--revoke-all'], io)).toBe(0)
    expect(out.join('')).toContain('Signed out 1 session(s).')
    expect((await apiClient(server.url, signed.accessToken).get('/users/me')).status).toBe(401)
    expect((await refresh(server, signed.refreshToken)).status).toBe(401)
  })
})
