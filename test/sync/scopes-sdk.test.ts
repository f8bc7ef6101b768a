import { afterEach, describe, expect, it } from 'vitest'
import { apiClient, issueKey, newOwner, useTestServer } from '../src/index.ts'
import { closeDevices, eventually, newDevice } from './devices.ts'

const server = useTestServer()
afterEach(async () => {
  await closeDevices()
})

describe('a device whose key lacks read scopes', () => {
  it('says which scopes are missing, and refuses a query over data it does not hold', async () => {
    const owner = await newOwner(server)
    const H = `/households/${owner.householdId}`
    const group = await owner.api.post(`${H}/category-groups`, { name: 'Bills' })
    await owner.api.post(`${H}/categories`, { groupId: group.body.id, name: 'Rent' })
    await owner.api.post(`${H}/tags`, { name: 'Shared' })
    const narrow = {
      ...owner,
      api: apiClient(
        server.url,
        await issueKey(server, owner.userId, ['read:households', 'read:budgets', 'read:tags']),
      ),
    }
    const device = await newDevice(server, narrow)
    const synced = await device.sync.whenSynced()
    expect(synced.missingScopes).toContain('read:categories')
    expect(synced.missingScopes).toContain('read:transactions')
    expect(synced.missingScopes).not.toContain('read:budgets')
    expect(device.sync.status.missingScopes).toEqual(synced.missingScopes)

    // Tags it may read answer as usual; a budget month, built on categories it cannot see, does not.
    expect((await device.query.tags.list()).map((t) => t.name)).toEqual(['Shared'])
    const refused = await device.query.budgets.get({ month: '2024-03' }).catch((e) => e)
    expect(refused.code).toBe('INSUFFICIENT_SCOPE')
    expect(refused.requiredScope ?? refused.extra?.requiredScope).toMatch(/^read:(categories|transactions)$/)
    expect(refused.message).toContain(refused.requiredScope ?? refused.extra?.requiredScope)

    // REST with the same key is refused the same way for an operation it lacks the scope for.
    const rest = await narrow.api.get(`${H}/categories`)
    expect([rest.status, rest.body.code]).toEqual([403, 'INSUFFICIENT_SCOPE'])
  }, 120_000)

  it('a full key is missing nothing', async () => {
    const owner = await newOwner(server)
    const device = await newDevice(server, owner)
    expect((await device.sync.whenSynced()).missingScopes).toEqual([])
  })
})

describe('watch and status', () => {
  it('reports bad arguments once, not at every later change', async () => {
    const owner = await newOwner(server)
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    const errors: unknown[] = []
    const stop = device.watch(
      'budgets.get',
      { yearMonth: 'March' } as never,
      () => {},
      (e) => errors.push(e),
    )
    await device.mutate.tags.create({ name: 'One' })
    await device.mutate.tags.create({ name: 'Two' })
    await eventually(async () => expect(errors).toHaveLength(1))
    await new Promise((r) => setTimeout(r, 100))
    expect(errors).toHaveLength(1)
    expect((errors[0] as any).code).toBe('VALIDATION_FAILED')
    stop()
  })

  it('announces going offline once, not at every reconnect attempt', async () => {
    const owner = await newOwner(server)
    // Nothing listens on port 9 of the loopback: every attempt fails at once.
    const device = await newDevice(server, owner, { serverUrl: 'http://127.0.0.1:9' })
    const states: string[] = []
    device.on('status', (s) => states.push(s.state))
    await new Promise((r) => setTimeout(r, 1500))
    // With 20-200 ms retries that is several attempts; none of them is news.
    expect(states.length).toBeLessThanOrEqual(1)
  })
})
