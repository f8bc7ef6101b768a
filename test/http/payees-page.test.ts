import { describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { createCategory, createGroup, expectProblem, expectStatus, H } from './catalog-fixture.ts'

const server = useTestServer()

async function household(names: string[], categorized: Record<string, 'food' | 'fun'> = {}) {
  const owner = await server.newOwner()
  const group = await createGroup(owner.api, 'G')
  const food = await createCategory(owner.api, group.id, 'Food')
  const fun = await createCategory(owner.api, group.id, 'Fun')
  const ids: Record<string, string> = {}
  for (const name of names) {
    const category = categorized[name]
    const body = { name, ...(category && { categoryId: category === 'food' ? food.id : fun.id }) }
    ids[name] = expectStatus(await owner.api.post(`${H}/payees`, body), 201).id
  }
  return { ...owner, food, fun, ids }
}

const names = (page: any) => page.items.map((p: any) => p.name)

describe('GET H/payees/page', () => {
  it('answers the first 25 by normalized name with the total, by default', async () => {
    const all = Array.from({ length: 30 }, (_, i) => `Payee ${String(i).padStart(2, '0')}`)
    const { api } = await household([...all].reverse())
    const page = expectStatus(await api.get(`${H}/payees/page`), 200)
    expect(page).toMatchObject({ page: 1, pageSize: 25, total: 30, pageCount: 2 })
    expect(names(page)).toEqual(all.slice(0, 25))
    const second = expectStatus(await api.get(`${H}/payees/page?page=2`), 200)
    expect(names(second)).toEqual(all.slice(25))
    const past = expectStatus(await api.get(`${H}/payees/page?page=3`), 200)
    expect(past).toMatchObject({ items: [], page: 3, total: 30, pageCount: 2 })
  })

  it('sorts descending, and pages of 10 cover every payee once', async () => {
    const all = Array.from({ length: 23 }, (_, i) => `P${String(i).padStart(2, '0')}`)
    const { api } = await household(all)
    const seen: string[] = []
    for (let page = 1; page <= 3; page++) {
      const body = expectStatus(await api.get(`${H}/payees/page?sort=nameDesc&pageSize=10&page=${page}`), 200)
      expect(body.total).toBe(23)
      seen.push(...names(body))
    }
    expect(seen).toEqual([...all].reverse())
  })

  it('filters by default category, by no category, and by a folded search text', async () => {
    const { api, food, fun } = await household(['Bakery', 'Café Crème', 'Cinema', 'Dentist'], {
      Bakery: 'food',
      'Café Crème': 'food',
      Cinema: 'fun',
    })
    expect(names(expectStatus(await api.get(`${H}/payees/page?categoryId=${food.id}`), 200))).toEqual([
      'Bakery',
      'Café Crème',
    ])
    expect(names(expectStatus(await api.get(`${H}/payees/page?categoryId=${fun.id}`), 200))).toEqual([
      'Cinema',
    ])
    const none = expectStatus(await api.get(`${H}/payees/page?segment=noCategory`), 200)
    expect(names(none)).toEqual(['Dentist'])
    expect(none.total).toBe(1)
    expect(names(expectStatus(await api.get(`${H}/payees/page?segment=all`), 200))).toHaveLength(4)
    // "CAFE" folds to "cafe", found inside "cafe creme"; LIKE wildcards are plain text.
    expect(names(expectStatus(await api.get(`${H}/payees/page?q=CAFE`), 200))).toEqual(['Café Crème'])
    expect(names(expectStatus(await api.get(`${H}/payees/page?q=e`), 200))).toEqual([
      'Bakery',
      'Café Crème',
      'Cinema',
      'Dentist',
    ])
    expect(expectStatus(await api.get(`${H}/payees/page?q=%25`), 200).total).toBe(0)
    expect(expectStatus(await api.get(`${H}/payees/page?q=_`), 200).total).toBe(0)
    const both = expectStatus(await api.get(`${H}/payees/page?q=c&categoryId=${food.id}&pageSize=10`), 200)
    expect(names(both)).toEqual(['Café Crème'])
  })

  it('leaves deleted payees out', async () => {
    const { api, ids } = await household(['Gone', 'Kept'])
    expectStatus(await api.delete(`${H}/payees/${ids.Gone}`), 204)
    const page = expectStatus(await api.get(`${H}/payees/page`), 200)
    expect(names(page)).toEqual(['Kept'])
    expect(page.total).toBe(1)
  })

  it('refuses any other page size, sort, segment or page by name', async () => {
    const { api, food } = await household([])
    for (const [query, path] of [
      ['pageSize=20', 'pageSize'],
      ['pageSize=0', 'pageSize'],
      ['pageSize=abc', 'pageSize'],
      ['pageSize=25.0', 'pageSize'],
      ['sort=name', 'sort'],
      ['segment=none', 'segment'],
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=1.5', 'page'],
      ['page=99999999', 'page'],
      [`segment=noCategory&categoryId=${food.id}`, 'segment'],
      ['limit=10', 'limit'],
    ] as const) {
      const problem = expectProblem(await api.get(`${H}/payees/page?${query}`), 400, 'VALIDATION_FAILED')
      expect(
        problem.errors.map((e: any) => e.path),
        query,
      ).toContain(path)
    }
    for (const size of [10, 25, 50, 100]) {
      expect(expectStatus(await api.get(`${H}/payees/page?pageSize=${size}`), 200).pageSize).toBe(size)
    }
  })

  it('is a route, not a payee id, and so is duplicate-groups', async () => {
    const { api } = await household(['Only'])
    expect((await api.get(`${H}/payees/page`)).status).toBe(200)
    expect((await api.get(`${H}/payees/duplicate-groups`)).status).toBe(200)
    expectProblem(await api.patch(`${H}/payees/page`, { name: 'x' }), 404, 'ROUTE_NOT_FOUND')
  })

  it('needs read:payees', async () => {
    const { api } = await server.newOwner(['read:transactions'])
    expectProblem(await api.get(`${H}/payees/page`), 403, 'INSUFFICIENT_SCOPE')
  })
})
