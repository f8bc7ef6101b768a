import { type DeviceCredential, signInDevice } from '@hearth/client'
import { DEFAULT_SESSION_SETTINGS } from '@hearth/server'
import { afterEach, describe, expect, it } from 'vitest'
import { apiClient, TEST_DATABASE_URL, type TestMember, useTestServer } from '../src/index.ts'
import { closeDevices, eventually, newDevice } from './devices.ts'

// Access tokens of two seconds: a test outlives several, as a device outlives many in a day.
const ACCESS_MS = 2000
const server = useTestServer({
  databaseUrl: TEST_DATABASE_URL,
  sessions: { ...DEFAULT_SESSION_SETTINGS, deviceAccessMs: ACCESS_MS },
})
afterEach(closeDevices)

const PASSWORD = 'plum tree under snow 42'

/** An owner with an email and a password, and a device credential signed in with them. */
async function signedInDevice(): Promise<{ owner: TestMember; credential: DeviceCredential }> {
  const owner = await server.newOwner()
  const email = `sdk-${owner.userId.toLowerCase()}@example.org`
  await server.store.db.updateTable('users').set({ email }).where('id', '=', owner.userId).execute()
  expect((await owner.api.put('/users/me/password', { newPassword: PASSWORD })).status).toBe(200)
  const credential = await signInDevice({
    serverUrl: server.url,
    name: 'Ada’s laptop',
    email,
    password: PASSWORD,
  })
  return { owner, credential }
}

const tagNames = async (member: TestMember) =>
  ((await member.api.get(`/households/${member.householdId}/tags`)).body as { name: string }[]).map(
    (t) => t.name,
  )

const deviceId = async (member: TestMember) => {
  const listed = await member.api.get('/sessions')
  return (listed.body.items as { id: string; kind: string }[]).find((s) => s.kind === 'device')!.id
}

describe('an SDK device with a device credential', () => {
  it('keeps syncing across several access-token expiries, persisting each rotated credential', async () => {
    const { owner, credential } = await signedInDevice()
    const rotated: DeviceCredential[] = []
    const device = await newDevice(server, owner, {
      token: undefined,
      household: 'current',
      deviceCredential: { ...credential, onRotate: (next) => void rotated.push(next) },
    })
    expect(device.householdId).toBe(owner.householdId)
    await device.sync.whenSynced({ timeoutMs: 60_000 })

    for (let round = 1; round <= 3; round++) {
      // Outlive the access token the device held at the round's start.
      await eventually(() => expect(rotated.length).toBeGreaterThanOrEqual(round), 30_000)
      await device.mutate.tags.create({ name: `Round ${round}` })
      await eventually(async () => expect(await tagNames(owner)).toContain(`Round ${round}`), 30_000)
      await device.ai.consent()
      // A new socket's hello carries the renewed token.
      await device.sync.disconnect()
      device.sync.connect()
      await device.sync.whenSynced({ timeoutMs: 60_000 })
    }
    const tokens = new Set([credential, ...rotated].map((c) => c.refreshToken))
    expect(tokens.size).toBe(rotated.length + 1)
    expect(device.sync.status.error).toBeNull()
    // The first access token is long gone; the last one works.
    expect((await apiClient(server.url, credential.accessToken).get('/users/me')).status).toBe(401)
    expect((await apiClient(server.url, rotated.at(-1)!.accessToken).get('/users/me')).status).toBe(200)
  }, 240_000)

  it('renews a token the server refuses (its end unknown), on REST and on the sync hello', async () => {
    const { owner, credential } = await signedInDevice()
    const saved: DeviceCredential[] = [
      { accessToken: credential.accessToken, refreshToken: credential.refreshToken },
    ]
    // A credential store that knows no expiry: the SDK learns of the end from the server's 401.
    const store = {
      load: () => saved.at(-1)!,
      save: (next: DeviceCredential) => void saved.push({ ...next, accessTokenExpiresAt: undefined }),
    }
    await new Promise((resolve) => setTimeout(resolve, ACCESS_MS + 200))
    const device = await newDevice(server, owner, { token: undefined, deviceCredential: store })
    await device.sync.whenSynced({ timeoutMs: 60_000 })
    // Each step renews at least once (under load a renewed token may lapse again on its way).
    expect(saved.length).toBeGreaterThanOrEqual(2)
    let before = saved.length
    await device.sync.disconnect()
    await new Promise((resolve) => setTimeout(resolve, ACCESS_MS + 200))
    expect((await device.ai.consent()).granted).toBe(false)
    expect(saved.length).toBeGreaterThan(before)
    before = saved.length
    await new Promise((resolve) => setTimeout(resolve, ACCESS_MS + 200))
    device.sync.connect()
    await device.sync.whenSynced({ timeoutMs: 60_000 })
    expect(saved.length).toBeGreaterThan(before)
    await device.mutate.tags.create({ name: 'After three ends' })
    await eventually(async () => expect(await tagNames(owner)).toContain('After three ends'), 30_000)
  }, 240_000)

  it('is cut off within a second when signed out, and cannot renew after', async () => {
    const { owner, credential } = await signedInDevice()
    const rotated: DeviceCredential[] = []
    const device = await newDevice(server, owner, {
      token: undefined,
      deviceCredential: { ...credential, onRotate: (next) => void rotated.push(next) },
    })
    await device.sync.whenSynced({ timeoutMs: 60_000 })
    const id = await deviceId(owner)

    const started = Date.now()
    expect((await owner.api.delete(`/sessions/${id}`)).status).toBe(204)
    await eventually(() => expect(device.sync.status.error?.code).toBe('KEY_REVOKED'), 5_000)
    expect(Date.now() - started).toBeLessThan(1000)

    await owner.api.post(`/households/${owner.householdId}/tags`, { name: 'After sign-out' })
    await expect(device.ai.consent()).rejects.toMatchObject({ status: 401 })
    expect(await device.query.tags.list({})).toEqual([])
    expect(device.sync.status).toMatchObject({ state: 'offline', error: { code: 'KEY_REVOKED' } })
    const last = rotated.at(-1) ?? credential
    const renew = await apiClient(server.url, null).post('/devices/refresh', {
      refreshToken: last.refreshToken,
    })
    expect(renew.status).toBe(401)
  }, 90_000)
})
