import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { expectProblem, expectStatus, H, labelTransaction } from './catalog-fixture.ts'

const server = useTestServer()

describe('tags over HTTP', () => {
  it('creates a Tag object, colour optional and stored in lower case', async () => {
    const { api } = await server.newOwner()
    const tag = expectStatus(await api.post(`${H}/tags`, { name: ' Vacation ', color: '#FFAA00' }), 201)
    expect(tag).toEqual({
      id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
      name: 'Vacation',
      color: '#ffaa00',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
    const id = ulid()
    expect(expectStatus(await api.post(`${H}/tags`, { id, name: 'Plain' }), 201)).toMatchObject({
      id,
      color: null,
    })
    expectProblem(await api.post(`${H}/tags`, { id, name: 'Again' }), 409, 'ID_ALREADY_EXISTS')
  })

  it('lists tags as a bare array, by name ignoring case', async () => {
    const { api } = await server.newOwner()
    for (const name of ['work', 'Business', 'alpha']) await api.post(`${H}/tags`, { name })
    const list = expectStatus(await api.get(`${H}/tags`), 200)
    expect(Array.isArray(list)).toBe(true)
    expect(list.map((t: any) => t.name)).toEqual(['alpha', 'Business', 'work'])
  })

  it('renames and recolours a tag, and clears its colour with null', async () => {
    const { api } = await server.newOwner()
    const tag = expectStatus(await api.post(`${H}/tags`, { name: 'Old', color: '#000000' }), 201)
    const renamed = expectStatus(
      await api.patch(`${H}/tags/${tag.id}`, { name: 'New', color: '#ABCDEF' }),
      200,
    )
    expect(renamed).toMatchObject({ id: tag.id, name: 'New', color: '#abcdef' })
    expect(expectStatus(await api.patch(`${H}/tags/${tag.id}`, { color: null }), 200).color).toBeNull()
    expect(expectStatus(await api.get(`${H}/tags`), 200)).toEqual([
      expect.objectContaining({ name: 'New', color: null }),
    ])
  })

  it('refuses a duplicate name in any case with 409 TAG_NAME_TAKEN', async () => {
    const { api } = await server.newOwner()
    const tag = expectStatus(await api.post(`${H}/tags`, { name: 'Trip' }), 201)
    const body = expectProblem(await api.post(`${H}/tags`, { name: 'TRIP' }), 409, 'TAG_NAME_TAKEN')
    expect(body.tagId).toBe(tag.id)
    const other = expectStatus(await api.post(`${H}/tags`, { name: 'Other' }), 201)
    expectProblem(await api.patch(`${H}/tags/${other.id}`, { name: 'trip' }), 409, 'TAG_NAME_TAKEN')
    expectStatus(await api.patch(`${H}/tags/${tag.id}`, { name: 'TRIP' }), 200)
  })

  it('refuses bad input with 400 VALIDATION_FAILED', async () => {
    const { api } = await server.newOwner()
    const tag = expectStatus(await api.post(`${H}/tags`, { name: 'T' }), 201)
    expectProblem(await api.post(`${H}/tags`, { name: '' }), 400, 'VALIDATION_FAILED')
    expectProblem(await api.post(`${H}/tags`, { name: 'X', color: 'red' }), 400, 'VALIDATION_FAILED')
    expectProblem(await api.post(`${H}/tags`, { name: 'X', icon: 'star' }), 400, 'VALIDATION_FAILED')
    expectProblem(await api.patch(`${H}/tags/${tag.id}`, { color: '#12345' }), 400, 'VALIDATION_FAILED')
  })

  it('deletes a tag: it leaves the list, its transaction links go, its name is free', async () => {
    const { api, householdId } = await server.newOwner()
    const tag = expectStatus(await api.post(`${H}/tags`, { name: 'Doomed' }), 201)
    const keep = expectStatus(await api.post(`${H}/tags`, { name: 'Kept' }), 201)
    const links = await labelTransaction(server.store, householdId, 'tag', tag.id)
    expect(await links()).toBe(1)

    const res = await api.delete(`${H}/tags/${tag.id}`)
    expect(res.status).toBe(204)
    expect(expectStatus(await api.get(`${H}/tags`), 200)).toEqual([keep])
    expect(await links()).toBe(0)
    expectProblem(await api.delete(`${H}/tags/${tag.id}`), 404, 'NOT_FOUND')
    expectProblem(await api.patch(`${H}/tags/${tag.id}`, { name: 'Back' }), 404, 'NOT_FOUND')
    expectStatus(await api.post(`${H}/tags`, { name: 'doomed' }), 201)
  })

  it('frees a deleted tag’s id, while a live tag’s id answers 409 ID_ALREADY_EXISTS', async () => {
    const { api } = await server.newOwner()
    const id = ulid()
    expectStatus(await api.post(`${H}/tags`, { id, name: 'First' }), 201)
    expectProblem(await api.post(`${H}/tags`, { id, name: 'Second' }), 409, 'ID_ALREADY_EXISTS')
    expect((await api.delete(`${H}/tags/${id}`)).status).toBe(204)
    expect(expectStatus(await api.post(`${H}/tags`, { id, name: 'Again' }), 201)).toMatchObject({
      id,
      name: 'Again',
    })
  })

  it("answers 404 for another household's tag", async () => {
    const a = await server.newOwner()
    const b = await server.newOwner()
    const tag = expectStatus(await a.api.post(`${H}/tags`, { name: 'Mine' }), 201)
    expectProblem(await b.api.patch(`${H}/tags/${tag.id}`, { name: 'Stolen' }), 404, 'NOT_FOUND')
    expectProblem(await b.api.delete(`${H}/tags/${tag.id}`), 404, 'NOT_FOUND')
    expectProblem(await b.api.get(`/households/${a.householdId}/tags`), 404, 'NOT_FOUND')
    expect(expectStatus(await b.api.get(`${H}/tags`), 200)).toEqual([])
    expect(expectStatus(await a.api.get(`${H}/tags`), 200)).toEqual([tag])
  })

  it('needs read:tags to list and write:tags to change', async () => {
    const reader = await server.newOwner(['read:tags'])
    const writer = await server.newOwner(['write:tags'])
    expectProblem(await reader.api.post(`${H}/tags`, { name: 'X' }), 403, 'INSUFFICIENT_SCOPE')
    expectProblem(await reader.api.patch(`${H}/tags/${ulid()}`, { name: 'X' }), 403, 'INSUFFICIENT_SCOPE')
    expectProblem(await reader.api.delete(`${H}/tags/${ulid()}`), 403, 'INSUFFICIENT_SCOPE')
    expectProblem(await writer.api.get(`${H}/tags`), 403, 'INSUFFICIENT_SCOPE')
  })
})
