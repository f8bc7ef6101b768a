import { describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { expectProblem, expectStatus, H } from './catalog-fixture.ts'

const server = useTestServer()

describe('payee near-duplicates over HTTP', () => {
  it("clusters 'AMAZON MKTPLACE' with 'Amazon Marketplace' but not 'Amazon' with 'Amazing Pizza'", async () => {
    const { api } = await server.newOwner()
    const ids: Record<string, string> = {}
    for (const name of ['Amazon Marketplace', 'Amazing Pizza', 'AMAZON MKTPLACE', 'Amazon', 'Netflix']) {
      ids[name] = expectStatus(await api.post(`${H}/payees`, { name }), 201).id
    }
    // 'NETFLIX.' folds to 'netflix', a name already taken; take another spelling.
    const groups = expectStatus(await api.get(`${H}/payees/duplicate-groups`), 200)
    expect(groups.threshold).toBe(0.9)
    expect(groups.items.map((g: any) => g.payees.map((p: any) => p.name))).toEqual([
      ['Amazon Marketplace', 'AMAZON MKTPLACE'],
    ])

    const candidates = expectStatus(
      await api.get(`${H}/payees/${ids['AMAZON MKTPLACE']}/dedupe-candidates`),
      200,
    )
    expect(candidates).toEqual({
      items: [{ payee: expect.objectContaining({ id: ids['Amazon Marketplace'] }), similarity: 0.960357 }],
      threshold: 0.9,
    })
    const amazon = expectStatus(await api.get(`${H}/payees/${ids.Amazon}/dedupe-candidates`), 200)
    expect(amazon.items).toEqual([])
  })

  it('groups Starbucks, STARBUCKS #1234 and Starbuck’s Coffee as bank text spells them, not Shell and Amazon', async () => {
    const { api } = await server.newOwner()
    const ids: Record<string, string> = {}
    for (const name of ['Starbucks', 'Shell', 'STARBUCKS #1234', 'Amazon', "Starbuck's Coffee"])
      ids[name] = expectStatus(await api.post(`${H}/payees`, { name }), 201).id
    const groups = expectStatus(await api.get(`${H}/payees/duplicate-groups`), 200)
    expect(groups.items.map((g: any) => g.payees.map((p: any) => p.name).sort())).toEqual([
      ['STARBUCKS #1234', "Starbuck's Coffee", 'Starbucks'],
    ])
    const candidates = expectStatus(await api.get(`${H}/payees/${ids.Starbucks}/dedupe-candidates`), 200)
    expect(candidates.items.map((c: any) => [c.payee.name, c.similarity]).sort()).toEqual([
      ['STARBUCKS #1234', 1],
      ["Starbuck's Coffee", 1],
    ])
    expect(expectStatus(await api.get(`${H}/payees/${ids.Shell}/dedupe-candidates`), 200).items).toEqual([])
  })

  it('leaves deleted payees out and answers 404 for an unknown one', async () => {
    const { api } = await server.newOwner()
    const a = expectStatus(await api.post(`${H}/payees`, { name: 'Shell Oil' }), 201)
    const b = expectStatus(await api.post(`${H}/payees`, { name: 'SHELL OIL 1234' }), 201)
    expect(expectStatus(await api.get(`${H}/payees/duplicate-groups`), 200).items).toHaveLength(1)
    expect((await api.delete(`${H}/payees/${b.id}`)).status).toBe(204)
    expect(expectStatus(await api.get(`${H}/payees/duplicate-groups`), 200).items).toEqual([])
    expect(expectStatus(await api.get(`${H}/payees/${a.id}/dedupe-candidates`), 200).items).toEqual([])
    expectProblem(await api.get(`${H}/payees/${b.id}/dedupe-candidates`), 404, 'NOT_FOUND')
    expectProblem(await api.get(`${H}/payees/duplicate-groups?x=1`), 400, 'VALIDATION_FAILED')
  })
})
