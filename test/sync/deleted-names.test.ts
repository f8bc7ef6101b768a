import { describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { closeDevices, eventually, newDevice } from './devices.ts'

const server = useTestServer()

describe('rows that keep a deleted payee’s or category’s id', () => {
  it('still name it, marked as deleted, over REST and on a device', async () => {
    const owner = await server.newOwner()
    const api = owner.api
    const account = await api.post('/households/current/accounts', { name: 'Cash', type: 'cash' })
    const payee = await api.post('/households/current/payees', { name: 'Corner Shop' })
    const group = await api.post('/households/current/category-groups', { name: 'Everyday' })
    const category = await api.post('/households/current/categories', {
      groupId: group.body.id,
      name: 'Snacks',
    })
    expect([account.status, payee.status, group.status, category.status]).toEqual([201, 201, 201, 201])
    const row = await api.post('/households/current/transactions', {
      accountId: account.body.id,
      date: '2026-11-20',
      amountCents: -450,
      payeeId: payee.body.id,
      categoryId: category.body.id,
    })
    expect(row.status).toBe(201)
    expect((await api.delete(`/households/current/payees/${payee.body.id}`)).status).toBe(204)
    const deletedCategory = await api.delete(`/households/current/categories/${category.body.id}`)
    expect(deletedCategory.status).toBe(204)

    // The row keeps both ids; the plain lists no longer hold them, the lists with deleted ones do.
    const kept = await api.get(`/households/current/transactions/${row.body.id}`)
    expect(kept.body).toMatchObject({ payeeId: payee.body.id })
    expect((await api.get('/households/current/payees')).body.items.map((p: any) => p.id)).not.toContain(
      payee.body.id,
    )
    const payees = await api.get('/households/current/payees?include=deleted')
    expect(payees.status).toBe(200)
    expect(payees.body.items).toContainEqual(
      expect.objectContaining({ id: payee.body.id, name: 'Corner Shop', deletedAt: expect.any(String) }),
    )
    const categories = await api.get('/households/current/categories?include=deleted')
    expect(categories.body.items).toContainEqual(
      expect.objectContaining({ id: category.body.id, name: 'Snacks', deletedAt: expect.any(String) }),
    )
    expect((await api.get('/households/current/payees?include=everything')).status).toBe(400)

    const device = await newDevice(server, owner)
    try {
      await device.sync.whenSynced({ timeoutMs: 120_000 })
      const local = await device.query.payees.list({ include: 'deleted' })
      expect(local).toEqual(payees.body)
      const localCategories = await device.query.categories.list({ include: 'deleted' })
      expect(localCategories).toEqual(categories.body)
      expect((await device.query.payees.list({})).items.map((p) => p.id)).not.toContain(payee.body.id)
      await eventually(async () => {
        const again = await device.query.payees.list({ include: 'deleted' })
        expect(again.items.find((p) => p.id === payee.body.id)?.deletedAt).toBeTruthy()
      })
    } finally {
      await closeDevices()
    }
  }, 120_000)
})
