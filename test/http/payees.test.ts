import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { createCategory, createGroup, expectProblem, expectStatus, H } from './catalog-fixture.ts'

const server = useTestServer()

describe('payees over HTTP', () => {
  it('creates a payee with its normalized name and reads it back', async () => {
    const { api } = await server.newOwner()
    const payee = expectStatus(await api.post(`${H}/payees`, { name: '  Café  Crème ' }), 201)
    expect(payee).toMatchObject({
      id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
      name: 'Café  Crème',
      normalizedName: 'cafe creme',
      categoryId: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
    expect(expectStatus(await api.get(`${H}/payees/${payee.id}`), 200)).toEqual(payee)
  })

  it('takes a client id and a default category', async () => {
    const { api } = await server.newOwner()
    const group = await createGroup(api, 'G')
    const food = await createCategory(api, group.id, 'Food')
    const id = ulid()
    const payee = expectStatus(
      await api.post(`${H}/payees`, { id, name: 'Bakery', categoryId: food.id }),
      201,
    )
    expect(payee).toMatchObject({ id, categoryId: food.id })
    expectProblem(await api.post(`${H}/payees`, { id, name: 'Other' }), 409, 'ID_ALREADY_EXISTS')
  })

  it('lists live payees by normalized name, not wrapped in pages', async () => {
    const { api } = await server.newOwner()
    for (const name of ['zebra', 'Äpfel', 'banana']) await api.post(`${H}/payees`, { name })
    const list = expectStatus(await api.get(`${H}/payees`), 200)
    expect(list.items.map((p: any) => p.name)).toEqual(['Äpfel', 'banana', 'zebra'])
    expect(list.nextCursor).toBeUndefined()
  })

  it('recomputes normalizedName on rename', async () => {
    const { api } = await server.newOwner()
    const payee = expectStatus(await api.post(`${H}/payees`, { name: 'AMAZON.COM*MK1AB2' }), 201)
    expect(payee.normalizedName).toBe('amazon com mk1ab2')
    const renamed = expectStatus(
      await api.patch(`${H}/payees/${payee.id}`, { name: "McDonald's Straße" }),
      200,
    )
    expect(renamed).toMatchObject({ name: "McDonald's Straße", normalizedName: 'mcdonalds strasse' })
    expect(expectStatus(await api.get(`${H}/payees/${payee.id}`), 200).normalizedName).toBe(
      'mcdonalds strasse',
    )
    // A different case of its own name is allowed.
    const recased = expectStatus(
      await api.patch(`${H}/payees/${payee.id}`, { name: "MCDONALD'S STRASSE" }),
      200,
    )
    expect(recased.normalizedName).toBe('mcdonalds strasse')
  })

  it('refuses a name whose normalized form another live payee has with 409 PAYEE_NAME_TAKEN', async () => {
    const { api } = await server.newOwner()
    const holder = expectStatus(await api.post(`${H}/payees`, { name: "McDonald's" }), 201)
    const body = expectProblem(await api.post(`${H}/payees`, { name: 'mcdonalds' }), 409, 'PAYEE_NAME_TAKEN')
    expect(body.payeeId).toBe(holder.id)
    const other = expectStatus(await api.post(`${H}/payees`, { name: 'Burger King' }), 201)
    expectProblem(await api.patch(`${H}/payees/${other.id}`, { name: 'MCDONALDS' }), 409, 'PAYEE_NAME_TAKEN')
  })

  it('sets and clears the default category, refusing a missing one with 404', async () => {
    const { api } = await server.newOwner()
    const group = await createGroup(api, 'G')
    const fuel = await createCategory(api, group.id, 'Fuel')
    const payee = expectStatus(await api.post(`${H}/payees`, { name: 'Shell' }), 201)
    expect(
      expectStatus(await api.patch(`${H}/payees/${payee.id}`, { categoryId: fuel.id }), 200).categoryId,
    ).toBe(fuel.id)
    expect(
      expectStatus(await api.patch(`${H}/payees/${payee.id}`, { categoryId: null }), 200).categoryId,
    ).toBeNull()
    const body = expectProblem(
      await api.patch(`${H}/payees/${payee.id}`, { categoryId: ulid() }),
      404,
      'NOT_FOUND',
    )
    expect(body.resource).toBe('Category')
    expectProblem(await api.post(`${H}/payees`, { name: 'X', categoryId: ulid() }), 404, 'NOT_FOUND')
  })

  it('refuses bad input with 400 VALIDATION_FAILED', async () => {
    const { api } = await server.newOwner()
    const payee = expectStatus(await api.post(`${H}/payees`, { name: 'P' }), 201)
    expectProblem(await api.post(`${H}/payees`, {}), 400, 'VALIDATION_FAILED')
    expectProblem(await api.post(`${H}/payees`, { name: 'x'.repeat(201) }), 400, 'VALIDATION_FAILED')
    expectProblem(await api.post(`${H}/payees`, { name: 'Y', aliases: [] }), 400, 'VALIDATION_FAILED')
    expectProblem(
      await api.patch(`${H}/payees/${payee.id}`, { categoryId: 'nope' }),
      400,
      'VALIDATION_FAILED',
    )
    expectProblem(
      await api.patch(`${H}/payees/${payee.id}`, { normalizedName: 'x' }),
      400,
      'VALIDATION_FAILED',
    )
    expectProblem(await api.get(`${H}/payees/not-a-ulid`), 404, 'NOT_FOUND')
    expectProblem(await api.get(`${H}/payees/${'x'.repeat(65)}`), 400, 'VALIDATION_FAILED')
  })

  it('soft-deletes a payee, hides it, and frees its name', async () => {
    const { api } = await server.newOwner()
    const payee = expectStatus(await api.post(`${H}/payees`, { name: 'Gone' }), 201)
    expect((await api.delete(`${H}/payees/${payee.id}`)).status).toBe(204)
    expectProblem(await api.get(`${H}/payees/${payee.id}`), 404, 'NOT_FOUND')
    expectProblem(await api.patch(`${H}/payees/${payee.id}`, { name: 'Back' }), 404, 'NOT_FOUND')
    expectProblem(await api.delete(`${H}/payees/${payee.id}`), 404, 'NOT_FOUND')
    expect(expectStatus(await api.get(`${H}/payees`), 200).items).toEqual([])
    const again = expectStatus(await api.post(`${H}/payees`, { name: 'gone' }), 201)
    expect(again.id).not.toBe(payee.id)
  })

  it("answers 404 for another household's payee", async () => {
    const a = await server.newOwner()
    const b = await server.newOwner()
    const payee = expectStatus(await a.api.post(`${H}/payees`, { name: 'Secret' }), 201)
    expectProblem(await b.api.get(`${H}/payees/${payee.id}`), 404, 'NOT_FOUND')
    expectProblem(await b.api.patch(`${H}/payees/${payee.id}`, { name: 'Mine' }), 404, 'NOT_FOUND')
    expectProblem(await b.api.delete(`${H}/payees/${payee.id}`), 404, 'NOT_FOUND')
    expectProblem(await b.api.get(`/households/${a.householdId}/payees/${payee.id}`), 404, 'NOT_FOUND')
    // The same name is free in another household.
    expectStatus(await b.api.post(`${H}/payees`, { name: 'Secret' }), 201)
    expect(expectStatus(await a.api.get(`${H}/payees/${payee.id}`), 200).name).toBe('Secret')
  })

  it('needs read:payees to read and write:payees to change', async () => {
    const reader = await server.newOwner(['read:payees'])
    const writer = await server.newOwner(['write:payees'])
    expectProblem(await reader.api.post(`${H}/payees`, { name: 'X' }), 403, 'INSUFFICIENT_SCOPE')
    expectProblem(await reader.api.patch(`${H}/payees/${ulid()}`, { name: 'X' }), 403, 'INSUFFICIENT_SCOPE')
    expectProblem(await reader.api.delete(`${H}/payees/${ulid()}`), 403, 'INSUFFICIENT_SCOPE')
    expectProblem(await writer.api.get(`${H}/payees`), 403, 'INSUFFICIENT_SCOPE')
    expectProblem(await writer.api.get(`${H}/payees/${ulid()}`), 403, 'INSUFFICIENT_SCOPE')
  })
})
