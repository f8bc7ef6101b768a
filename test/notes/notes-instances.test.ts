import { rmSync } from 'node:fs'
import type { HearthNote } from '@hearth/client'
import { ulid } from 'ulidx'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { TEST_DATABASE_URL, useTestServer } from '../src/index.ts'
import { closeDevices, eventually, newDevice, newDeviceFolder } from '../sync/devices.ts'

// Two server instances over one store, as two processes behind a load balancer would be; on
// PostgreSQL each LISTENs for the other's note updates (and re-reads open notes each second).
const first = useTestServer({ databaseUrl: TEST_DATABASE_URL })
const second = useTestServer({ databaseUrl: TEST_DATABASE_URL })
const opened: HearthNote[] = []
// The first device of a run migrates the device template (seconds, longer under load): not the notes' time.
beforeAll(async () => rmSync(await newDeviceFolder(), { recursive: true, force: true }), 180_000)
afterEach(async () => {
  await Promise.all(opened.splice(0).map((n) => n.close()))
  await closeDevices()
})

describe('shared notes on several server instances', { timeout: 90_000 }, () => {
  it('merges live edits made through two instances, and a delete on one closes the note on the other', async () => {
    const owner = await first.newOwner()
    const H = `/households/${owner.householdId}`
    const categoryGroup = await owner.api.post(`${H}/category-groups`, { name: 'Everyday' })
    const category = await owner.api.post(`${H}/categories`, { groupId: categoryGroup.body.id, name: 'Food' })
    expect(category.status).toBe(201)
    const target = { kind: 'category', id: category.body.id as string } as const
    const a = await newDevice(first, owner)
    const b = await newDevice(second, owner)
    const na = await a.notes.open(target)
    const nb = await b.notes.open(target)
    opened.push(na, nb)
    await Promise.all([na.whenSynced(), nb.whenSynced()])
    na.text.insert(0, 'Weekly shop on Saturday.')
    await eventually(() => expect(nb.text.toString()).toBe('Weekly shop on Saturday.'))
    nb.text.insert(0, 'Budget 120. ')
    na.text.insert(na.text.length, ' Market first.')
    const merged = 'Budget 120. Weekly shop on Saturday. Market first.'
    await eventually(() => {
      expect(na.text.toString()).toBe(merged)
      expect(nb.text.toString()).toBe(merged)
    })
    // REST on either instance reads the merged text; a REST write on one reaches editors on both.
    await eventually(async () =>
      expect((await owner.api.get(`${H}/categories/${target.id}/note`)).body.text).toBe(merged),
    )
    const viaSecond = await fetch(`${second.url}${H}/categories/${target.id}/note/append`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.api.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: ' (Checked.)' }),
    })
    expect(viaSecond.status).toBe(200)
    await eventually(() => expect(na.text.toString()).toBe(`${merged} (Checked.)`))

    expect((await owner.api.delete(`${H}/categories/${target.id}`)).status).toBe(204)
    await eventually(() => {
      expect(na.status.error?.reason).toBe('NOTE_DELETED')
      expect(nb.status.error?.reason).toBe('NOTE_DELETED')
    })
  })

  it('keeps a note written through one instance for a device that opens it on the other', async () => {
    const owner = await first.newOwner()
    const H = `/households/${owner.householdId}`
    const accountId = ulid()
    await owner.api.post(`${H}/accounts`, { id: accountId, name: 'Savings', type: 'cash' })
    const a = await newDevice(first, owner)
    const na = await a.notes.open({ kind: 'account', id: accountId })
    opened.push(na)
    await na.whenSynced()
    na.text.insert(0, 'Emergency fund.')
    await eventually(async () =>
      expect((await owner.api.get(`${H}/accounts/${accountId}/note`)).body.text).toBe('Emergency fund.'),
    )
    const b = await newDevice(second, owner)
    const nb = await b.notes.open({ kind: 'account', id: accountId })
    opened.push(nb)
    await nb.whenSynced()
    await eventually(() => expect(nb.text.toString()).toBe('Emergency fund.'))
  })
})
