import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { apiClient, useTestServer } from '../src/index.ts'
import { createCategory, createGroup, expectProblem, expectStatus, H } from './catalog-fixture.ts'

const server = useTestServer()

const EN_GROUPS = ['Bills', 'Everyday', 'True Expenses', 'Quality of Life', 'Savings Goals', 'Income']
const DE_GROUPS = ['Fixkosten', 'Alltag', 'Unregelmäßige Ausgaben', 'Freizeit', 'Sparziele', 'Einnahmen']

/** POST with no body at all, as a plain `curl -X POST` would send it. */
async function postEmpty(token: string) {
  return apiClient(server.url, token).request('POST', `${H}/starter-pack`)
}

describe('POST H/starter-pack', () => {
  it('seeds the pack as edited, and the same body again creates nothing', async () => {
    const { api } = await server.newOwner()
    const groups = [
      { name: 'Home', categories: ['Rent', 'Energy'] },
      { name: 'Money in', isIncome: true, categories: ['Wages'] },
    ]
    const first = expectStatus(await api.post(`${H}/starter-pack`, { groups }), 201)
    expect(first.created.groups.map((g: any) => [g.name, g.isIncome])).toEqual([
      ['Home', false],
      ['Money in', true],
    ])
    expect(first.created.categories.map((c: any) => c.name)).toEqual(['Rent', 'Energy', 'Wages'])
    const again = expectStatus(await api.post(`${H}/starter-pack`, { groups }), 201)
    expect(again.created).toEqual({ groups: [], categories: [] })
    expect(again.skipped.categories.length).toBe(3)
    const blank = await api.post(`${H}/starter-pack`, { groups: [{ name: ' ', categories: [] }] })
    expect(blank.status).toBe(400)
  })

  it('seeds the English pack with no body and answers 201 with what it created', async () => {
    const { api } = await server.newOwner()
    const body = expectStatus(await postEmpty(api.token), 201)
    expect(body.language).toBe('en')
    expect(body.created.groups.map((g: any) => g.name)).toEqual(EN_GROUPS)
    expect(body.created.groups.at(-1)).toMatchObject({ name: 'Income', isIncome: true })
    expect(body.created.groups[0].categories).toBeUndefined()
    expect(body.created.categories.length).toBeGreaterThanOrEqual(20)
    expect(body.skipped).toEqual({ groups: [], categories: [] })

    const { items } = expectStatus(await api.get(`${H}/category-groups`), 200)
    expect(items.map((g: any) => g.name)).toEqual(EN_GROUPS)
    expect(items[1].categories.map((c: any) => c.name)).toContain('Groceries')
  })

  it('creates nothing the second time and reports every row as skipped', async () => {
    const { api } = await server.newOwner()
    const first = expectStatus(await api.post(`${H}/starter-pack`, {}), 201)
    const second = expectStatus(await api.post(`${H}/starter-pack`, {}), 201)
    expect(second.created).toEqual({ groups: [], categories: [] })
    expect(second.skipped.groups.map((g: any) => g.id)).toEqual(first.created.groups.map((g: any) => g.id))
    expect(second.skipped.categories.map((c: any) => c.id)).toEqual(
      first.created.categories.map((c: any) => c.id),
    )
    const { items } = expectStatus(await api.get(`${H}/categories`), 200)
    expect(items).toHaveLength(first.created.categories.length)
  })

  it('uses German names for a household whose data language is de, and stays idempotent', async () => {
    const { api } = await server.newOwner()
    expectStatus(await api.patch(H, { dataLanguage: 'de' }), 200)
    const first = expectStatus(await api.post(`${H}/starter-pack`, {}), 201)
    expect(first.language).toBe('de')
    expect(first.created.groups.map((g: any) => g.name)).toEqual(DE_GROUPS)
    const names = first.created.categories.map((c: any) => c.name)
    expect(names).toEqual(expect.arrayContaining(['Lebensmittel', 'Miete oder Kredit', 'Gehalt']))
    expect(names).not.toContain('Groceries')
    const second = expectStatus(await api.post(`${H}/starter-pack`, {}), 201)
    expect(second.created).toEqual({ groups: [], categories: [] })
    expect(expectStatus(await api.get(`${H}/category-groups`), 200).items).toHaveLength(DE_GROUPS.length)
  })

  it('falls back to English for a language the pack lacks', async () => {
    const { api } = await server.newOwner()
    expectStatus(await api.patch(H, { dataLanguage: 'nl' }), 200)
    const body = expectStatus(await api.post(`${H}/starter-pack`, {}), 201)
    expect(body.language).toBe('en')
    expect(body.created.groups[0].name).toBe('Bills')
  })

  it('reuses existing groups and skips existing categories by name, ignoring case', async () => {
    const { api } = await server.newOwner()
    const bills = await createGroup(api, 'bills')
    const mine = await createGroup(api, 'Mine')
    const groceries = await createCategory(api, mine.id, 'GROCERIES')
    const body = expectStatus(await api.post(`${H}/starter-pack`, {}), 201)
    expect(body.skipped.groups).toEqual([expect.objectContaining({ id: bills.id, name: 'bills' })])
    expect(body.skipped.categories).toEqual([groceries])
    expect(body.created.groups.map((g: any) => g.name)).toEqual(EN_GROUPS.slice(1))
    expect(body.created.groups[0].position).toBe(2)
    const rent = body.created.categories.find((c: any) => c.name === 'Rent or Mortgage')
    expect(rent.groupId).toBe(bills.id)
  })

  it('accepts a client seed id; reusing it after deleting what it made answers 409', async () => {
    const { api } = await server.newOwner()
    const seedId = ulid()
    const first = expectStatus(await api.post(`${H}/starter-pack`, { seedId }), 201)
    expect(expectStatus(await api.post(`${H}/starter-pack`, { seedId }), 201).created.categories).toEqual([])
    const gifts = first.created.categories.find((c: any) => c.name === 'Gifts')
    expect((await api.delete(`${H}/categories/${gifts.id}`)).status).toBe(204)
    expectProblem(await api.post(`${H}/starter-pack`, { seedId }), 409, 'ID_ALREADY_EXISTS')
    const fresh = expectStatus(await api.post(`${H}/starter-pack`, {}), 201)
    expect(fresh.created.categories.map((c: any) => c.name)).toEqual(['Gifts'])
  })

  it('refuses unknown fields and a malformed seed id with 400', async () => {
    const { api } = await server.newOwner()
    expectProblem(await api.post(`${H}/starter-pack`, { language: 'de' }), 400, 'VALIDATION_FAILED')
    expectProblem(await api.post(`${H}/starter-pack`, { seedId: 'nope' }), 400, 'VALIDATION_FAILED')
    expectProblem(await api.post(`${H}/starter-pack`, '{broken'), 400, 'MALFORMED_JSON')
    expect(expectStatus(await api.get(`${H}/category-groups`), 200).items).toEqual([])
  })

  it('needs write:categories', async () => {
    const reader = await server.newOwner(['read:categories'])
    expectProblem(await reader.api.post(`${H}/starter-pack`, {}), 403, 'INSUFFICIENT_SCOPE')
    expect(expectStatus(await reader.api.get(`${H}/category-groups`), 200).items).toEqual([])
  })

  it("answers 404 for a household the caller is not in, and never touches another household's rows", async () => {
    const a = await server.newOwner()
    const b = await server.newOwner()
    expectProblem(await b.api.post(`/households/${a.householdId}/starter-pack`, {}), 404, 'NOT_FOUND')
    expect(expectStatus(await a.api.get(`${H}/category-groups`), 200).items).toEqual([])
    expectStatus(await b.api.post(`${H}/starter-pack`, {}), 201)
    expect(expectStatus(await a.api.get(`${H}/categories`), 200).items).toEqual([])
  })
})
