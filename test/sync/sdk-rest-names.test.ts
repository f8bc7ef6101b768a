import { ulid } from 'ulidx'
import { afterEach, describe, expect, it } from 'vitest'
import { newOwner, useTestServer } from '../src/index.ts'
import { closeDevices, eventually, newDevice } from './devices.ts'

const server = useTestServer()
afterEach(async () => {
  await closeDevices()
})

const H = '/households/current'

describe('SDK calls take the REST path names', () => {
  it('assigns, reads and renames with yearMonth and categoryId as REST names them, the same as with month and id', async () => {
    const owner = await newOwner(server)
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    const groupId = ulid()
    const categoryId = ulid()
    await device.mutate.categoryGroups.create({ id: groupId, name: 'Everyday' })
    await device.mutate.categories.create({ id: categoryId, groupId, name: 'Food' })

    const cell = await device.mutate.budgets.assign({
      yearMonth: '2024-05',
      categoryId,
      assignedCents: 30_000,
    })
    expect(cell).toMatchObject({ assignedCents: '30000' })
    const renamed = await device.mutate.categories.update({ categoryId, name: 'Groceries' })
    expect(renamed).toMatchObject({ id: categoryId, name: 'Groceries' })
    await device.sync.whenSynced()

    // The queued mutations reached the server with the engine's argument names.
    const rest = await owner.api.get(`${H}/budgets/2024-05`)
    const restCell = rest.body.groups.flatMap((g: any) => g.categories).find((c: any) => c.id === categoryId)
    expect(restCell).toMatchObject({ name: 'Groceries', assignedCents: '30000' })
    expect(device.sync.rejected).toEqual([])

    const byRestName = await device.query.budgets.get({ yearMonth: '2024-05' })
    expect(byRestName).toEqual(await device.query.budgets.get({ month: '2024-05' }))
    expect(byRestName).toEqual(rest.body)
    const restCategory = await owner.api.get(`${H}/budgets/2024-05/categories/${categoryId}`)
    expect(await device.query.budgets.getCategory({ yearMonth: '2024-05', categoryId })).toEqual(
      restCategory.body,
    )

    // Both names with one value are fine; with two values the call is refused, naming the REST one.
    expect(await device.query.budgets.get({ yearMonth: '2024-05', month: '2024-05' } as never)).toEqual(
      rest.body,
    )
    await expect(
      device.query.budgets.get({ yearMonth: '2024-05', month: '2024-06' } as never),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', status: 400, errors: [{ path: 'yearMonth' }] })
    await expect(
      device.mutate.budgets.assign({
        yearMonth: '2024-05',
        month: '2024-06',
        categoryId,
        assignedCents: 1,
      } as never),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ path: 'yearMonth' }] })
    // A name that is neither is still an unknown field.
    await expect(
      device.query.budgets.get({ yearMonth: '2024-05', colour: 'red' } as never),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ path: 'colour' }] })
    await device.sync.whenSynced()
    const after = await owner.api.get(`${H}/budgets/2024-05`)
    expect(after.body).toEqual(rest.body)
  })

  it('watches a query by its REST names, and reports a clash once', async () => {
    const owner = await newOwner(server)
    const rule = await owner.api.post(`${H}/rules`, {
      name: 'Rent',
      predicate: { combinator: 'all', conditions: [{ field: 'memo', op: 'contains', value: 'rent' }] },
      action: { appendMemo: '(rent)' },
    })
    expect(rule.status, JSON.stringify(rule.body)).toBe(201)
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    expect(await device.query.rules.get({ ruleId: rule.body.id })).toEqual(
      (await owner.api.get(`${H}/rules/${rule.body.id}`)).body,
    )

    const seen: any[] = []
    const stop = device.watch('rules.get', { ruleId: rule.body.id }, (r) => seen.push(r))
    await eventually(() => expect(seen.at(-1)?.name).toBe('Rent'))
    expect((await owner.api.patch(`${H}/rules/${rule.body.id}`, { name: 'Rent, monthly' })).status).toBe(200)
    await eventually(() => expect(seen.at(-1)?.name).toBe('Rent, monthly'))
    stop()

    const errors: unknown[] = []
    const stopBad = device.watch(
      'rules.get',
      { ruleId: rule.body.id, id: ulid() } as never,
      () => {},
      (e) => errors.push(e),
    )
    await eventually(() => expect(errors).toHaveLength(1))
    expect(errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ path: 'ruleId' }] })
    stopBad()
  })
})
