import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { expectProblem, expectStatus, H, labelTransaction } from './catalog-fixture.ts'

const server = useTestServer()

const DEFAULTS = ['Red', 'Orange', 'Yellow', 'Green', 'Blue', 'Purple']

describe('flags over HTTP', () => {
  it('lists the six default flags of a new household in order', async () => {
    const { api } = await server.newOwner()
    const list = expectStatus(await api.get(`${H}/flags`), 200)
    expect(list.items.map((f: any) => [f.name, f.position])).toEqual(DEFAULTS.map((name, i) => [name, i]))
    expect(list.items[0]).toEqual({
      id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
      name: 'Red',
      color: '#e5484d',
      position: 0,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
  })

  it('creates a flag last, with a client id if given', async () => {
    const { api } = await server.newOwner()
    const id = ulid()
    const flag = expectStatus(await api.post(`${H}/flags`, { id, name: 'Review', color: '#123ABC' }), 201)
    expect(flag).toMatchObject({ id, name: 'Review', color: '#123abc', position: 6 })
    expect(expectStatus(await api.get(`${H}/flags`), 200).items.at(-1)).toEqual(flag)
    expectProblem(
      await api.post(`${H}/flags`, { id, name: 'Other', color: '#000000' }),
      409,
      'ID_ALREADY_EXISTS',
    )
  })

  it('renames, recolours and moves a flag', async () => {
    const { api } = await server.newOwner()
    const [red] = expectStatus(await api.get(`${H}/flags`), 200).items
    const updated = expectStatus(
      await api.patch(`${H}/flags/${red.id}`, { name: 'Urgent', color: '#FF0000', position: 10 }),
      200,
    )
    expect(updated).toMatchObject({ id: red.id, name: 'Urgent', color: '#ff0000', position: 10 })
    expect(expectStatus(await api.get(`${H}/flags`), 200).items.at(-1).id).toBe(red.id)
  })

  it('refuses a duplicate name in any case with 409 FLAG_NAME_TAKEN', async () => {
    const { api } = await server.newOwner()
    const [red, orange] = expectStatus(await api.get(`${H}/flags`), 200).items
    const body = expectProblem(
      await api.post(`${H}/flags`, { name: 'RED', color: '#000000' }),
      409,
      'FLAG_NAME_TAKEN',
    )
    expect(body.flagId).toBe(red.id)
    expectProblem(await api.patch(`${H}/flags/${orange.id}`, { name: 'red' }), 409, 'FLAG_NAME_TAKEN')
  })

  it('refuses bad input with 400 VALIDATION_FAILED', async () => {
    const { api } = await server.newOwner()
    const [red] = expectStatus(await api.get(`${H}/flags`), 200).items
    expectProblem(await api.post(`${H}/flags`, { name: 'No colour' }), 400, 'VALIDATION_FAILED')
    expectProblem(await api.post(`${H}/flags`, { name: 'X', color: 'blue' }), 400, 'VALIDATION_FAILED')
    expectProblem(await api.patch(`${H}/flags/${red.id}`, { color: null }), 400, 'VALIDATION_FAILED')
    expectProblem(await api.patch(`${H}/flags/${red.id}`, { position: 'first' }), 400, 'VALIDATION_FAILED')
    expectProblem(await api.patch(`${H}/flags/${red.id}`, { icon: 'x' }), 400, 'VALIDATION_FAILED')
  })

  it('deletes a flag for good, with its transaction links', async () => {
    const { api, householdId } = await server.newOwner()
    const [red] = expectStatus(await api.get(`${H}/flags`), 200).items
    const links = await labelTransaction(server.store, householdId, 'flag', red.id)
    expect(await links()).toBe(1)
    expect((await api.delete(`${H}/flags/${red.id}`)).status).toBe(204)
    expect(expectStatus(await api.get(`${H}/flags`), 200).items.map((f: any) => f.name)).toEqual(
      DEFAULTS.slice(1),
    )
    expect(await links()).toBe(0)
    expectProblem(await api.delete(`${H}/flags/${red.id}`), 404, 'NOT_FOUND')
    expectProblem(await api.patch(`${H}/flags/${red.id}`, { name: 'Back' }), 404, 'NOT_FOUND')
    expectStatus(await api.post(`${H}/flags`, { name: 'Red', color: '#e5484d' }), 201)
  })

  it("answers 404 for another household's flag", async () => {
    const a = await server.newOwner()
    const b = await server.newOwner()
    const [red] = expectStatus(await a.api.get(`${H}/flags`), 200).items
    expectProblem(await b.api.patch(`${H}/flags/${red.id}`, { name: 'Mine' }), 404, 'NOT_FOUND')
    expectProblem(await b.api.delete(`${H}/flags/${red.id}`), 404, 'NOT_FOUND')
    expectProblem(await b.api.get(`/households/${a.householdId}/flags`), 404, 'NOT_FOUND')
    expect(expectStatus(await a.api.get(`${H}/flags`), 200).items[0]).toEqual(red)
  })

  it('needs read:transactions to list and write:transactions to change', async () => {
    const reader = await server.newOwner(['read:transactions'])
    const writer = await server.newOwner(['write:transactions'])
    const other = await server.newOwner(['read:tags', 'write:tags'])
    expectProblem(
      await reader.api.post(`${H}/flags`, { name: 'X', color: '#000000' }),
      403,
      'INSUFFICIENT_SCOPE',
    )
    expectProblem(await reader.api.patch(`${H}/flags/${ulid()}`, { name: 'X' }), 403, 'INSUFFICIENT_SCOPE')
    expectProblem(await reader.api.delete(`${H}/flags/${ulid()}`), 403, 'INSUFFICIENT_SCOPE')
    expectProblem(await writer.api.get(`${H}/flags`), 403, 'INSUFFICIENT_SCOPE')
    const body = expectProblem(await other.api.get(`${H}/flags`), 403, 'INSUFFICIENT_SCOPE')
    expect(body.requiredScope).toBe('read:transactions')
    expect(expectStatus(await reader.api.get(`${H}/flags`), 200).items).toHaveLength(6)
  })
})
