import { ulid } from 'ulidx'
import { afterEach, describe, expect, it } from 'vitest'
import { newOwner, useTestServer } from '../src/index.ts'
import { closeDevices, eventually, newDevice } from './devices.ts'

const server = useTestServer()
afterEach(async () => {
  await closeDevices()
})

describe('category goals through the SDK', () => {
  it('sets a goal on a device, the server stores it, and a change over REST reaches the device', async () => {
    const owner = await newOwner(server)
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    const groupId = ulid()
    const id = ulid()
    await device.mutate.categoryGroups.create({ id: groupId, name: 'Yearly' })
    const created = await device.mutate.categories.create({
      id,
      groupId,
      name: 'Insurance',
      goal: { type: 'neededForSpending', amountCents: 120000, everyMonths: 12, dueDate: '2026-12-01' },
    })
    const insurance = {
      type: 'neededForSpending',
      amountCents: '120000',
      everyMonths: 12,
      dueDate: '2026-12-01',
      fill: 'refill',
    }
    expect(created.goal).toEqual(insurance)
    await device.sync.whenSynced()

    const rest = await owner.api.get('/households/current/categories')
    expect(rest.body.items.find((c: any) => c.id === id).goal).toEqual(insurance)

    const patched = await owner.api.patch(`/households/current/categories/${id}`, {
      goal: { type: 'targetBalanceByDate', targetCents: '90000', targetDate: '2027-06-30' },
    })
    expect(patched.status).toBe(200)
    await eventually(async () => {
      const local = (await device.query.categories.list({})).items.find((c) => c.id === id)
      expect(local?.goal).toEqual({
        type: 'targetBalanceByDate',
        targetCents: '90000',
        targetDate: '2027-06-30',
      })
    })

    await device.mutate.categories.update({ id, goal: null })
    await device.sync.whenSynced()
    const after = await owner.api.get('/households/current/categories')
    expect(after.body.items.find((c: any) => c.id === id).goal).toBeNull()
  })

  it('creates a category that carries overspending on a device; REST and the replica agree', async () => {
    const owner = await newOwner(server)
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    const groupId = ulid()
    const id = ulid()
    await device.mutate.categoryGroups.create({ id: groupId, name: 'Bills' })
    const created = await device.mutate.categories.create({
      id,
      groupId,
      name: 'Car repairs',
      carryOverspending: true,
    })
    expect(created.carryOverspending).toBe(true)
    await device.sync.whenSynced()
    const rest = await owner.api.get('/households/current/categories')
    expect(rest.body.items.find((c: any) => c.id === id).carryOverspending).toBe(true)
    const restMonth = await owner.api.get('/households/current/budgets/2024-03')
    const restCell = restMonth.body.groups.flatMap((g: any) => g.categories).find((c: any) => c.id === id)
    expect(restCell.carryOverspending).toBe(true)
    const localMonth = await device.query.budgets.get({ month: '2024-03' })
    const localCell = localMonth.groups.flatMap((g) => g.categories).find((c) => c.id === id)
    expect(localCell?.carryOverspending).toBe(true)
    await expect(
      device.mutate.categories.create({
        id: ulid(),
        groupId,
        name: 'Bad',
        carryOverspending: 'yes' as never,
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ path: 'carryOverspending' }] })
  })

  it('refuses a bad goal on the device before anything is queued', async () => {
    const owner = await newOwner(server)
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    const groupId = ulid()
    await device.mutate.categoryGroups.create({ id: groupId, name: 'G' })
    await expect(
      device.mutate.categories.create({
        id: ulid(),
        groupId,
        name: 'Bad',
        goal: { type: 'monthly', amountCents: 0 } as never,
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' })
    expect((await device.query.categories.list({})).items).toEqual([])
  })
})
