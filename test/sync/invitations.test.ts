import { afterEach, describe, expect, it } from 'vitest'
import { apiClient, newOwner, useTestServer } from '../src/index.ts'
import { closeDevices, eventually, newDevice } from './devices.ts'

const server = useTestServer()
afterEach(async () => {
  await closeDevices()
})

describe('an invited partner', () => {
  it('redeems a code over REST, and their device shares the household with the owner’s', async () => {
    const owner = await newOwner(server)
    const ownerDevice = await newDevice(server, owner)
    await ownerDevice.sync.whenSynced()
    await ownerDevice.mutate.tags.create({ name: 'Groceries' })
    await ownerDevice.sync.whenSynced()

    const invite = await owner.api.post(`/households/${owner.householdId}/invitations`, {
      scopes: ['read:households', 'read:tags', 'write:tags'],
    })
    const joined = await apiClient(server.url, null).post('/invitations/redeem', {
      code: invite.body.code,
      name: 'Partner',
      keyName: 'Partner phone',
    })
    expect(joined.status).toBe(201)
    const partner = {
      userId: joined.body.userId,
      householdId: owner.householdId,
      api: apiClient(server.url, joined.body.apiKey.key),
    }
    const partnerDevice = await newDevice(server, partner, { household: 'current' })
    await partnerDevice.sync.whenSynced()
    expect((await partnerDevice.query.tags.list()).map((t) => t.name)).toEqual(['Groceries'])

    await partnerDevice.mutate.tags.create({ name: 'Holidays' })
    await partnerDevice.sync.whenSynced()
    await eventually(async () => {
      expect((await ownerDevice.query.tags.list()).map((t) => t.name)).toEqual(['Groceries', 'Holidays'])
    })
  }, 120_000)
})
