import { afterEach, describe, expect, it } from 'vitest'
import { newOwner, useTestServer } from '../src/index.ts'
import { closeDevices, newDevice } from './devices.ts'

const server = useTestServer()
afterEach(async () => {
  await closeDevices()
})

describe('activity of a device', () => {
  // The first device of a PostgreSQL run builds its migrated PGlite template (about 30 s loaded).
  it('records a pushed change when the server applies it, as the member’s device, and its undo reaches the device', {
    timeout: 120_000,
  }, async () => {
    const owner = await newOwner(server)
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    const tag = await device.mutate.tags.create({ name: 'Offline idea' })
    await device.sync.whenSynced()

    const { items } = (await owner.api.get('/households/current/activity?operation=tags.create')).body
    expect(items).toHaveLength(1)
    expect(items[0]).toMatchObject({
      memberId: owner.userId,
      actor: { kind: 'device', label: "Owner's test device" },
      changes: [expect.objectContaining({ resource: 'tag', id: tag.id, action: 'created' })],
    })

    const undo = await owner.api.post('/households/current/activity/undo', { entryId: items[0].id })
    expect(undo.status).toBe(200)
    await device.sync.whenSynced()
    await expect
      .poll(async () => (await device.query.tags.list()).map((t) => t.id), { timeout: 10_000 })
      .toEqual([])
  })
})
