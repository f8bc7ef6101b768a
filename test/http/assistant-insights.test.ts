import { serverJobs } from '@hearth/server'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { createCategory, createGroup, expectProblem, expectStatus, H } from './catalog-fixture.ts'
import { bulkCreate, createAccount } from './ledger-fixture.ts'

const server = useTestServer()
const AI = `${H}/ai`
const pad = (n: number) => String(n).padStart(2, '0')
const today = new Date().toISOString().slice(0, 10)
/** The 10th of the month `offset` months from this one. */
function tenth(offset: number): string {
  const d = new Date(Date.UTC(Number(today.slice(0, 4)), Number(today.slice(5, 7)) - 1 + offset, 10))
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-10`
}

/** Runs the server's insights job once, as the job runner would. */
async function runInsightsJob(): Promise<unknown> {
  const job = serverJobs(server.store).find((j) => j.name === 'insights.generate')!
  const now = new Date()
  return job.run({
    store: server.store,
    actor: { actor: 'system', scopes: [], now },
    logger: pino({ level: 'silent' }),
    signal: new AbortController().signal,
  })
}

describe('insights', () => {
  it('are generated from data with evidence, never twice, and dismissed idempotently', async () => {
    const { api } = await server.newOwner()
    const account = await createAccount(api)
    const group = await createGroup(api, 'Living')
    const dining = await createCategory(api, group.id, 'Dining Out')
    const fuel = await createCategory(api, group.id, 'Fuel')
    const rows: Record<string, unknown>[] = []
    // Fuel: 40.00 a month for three months, then 120.00 last month (trending up).
    for (const o of [-4, -3, -2])
      rows.push({ accountId: account.id, date: tenth(o), amountCents: -4000, categoryId: fuel.id })
    rows.push({ accountId: account.id, date: tenth(-1), amountCents: -12000, categoryId: fuel.id })
    // A gym that charges 30.00 a month, then 95.00 today (unusual for that payee).
    for (const o of [-4, -3, -2, -1])
      rows.push({ accountId: account.id, date: tenth(o), amountCents: -3000, payeeName: 'City Gym' })
    rows.push({ accountId: account.id, date: today, amountCents: -9500, payeeName: 'City Gym' })
    // Dining Out: 25.00 spent this month with nothing assigned (overspent).
    rows.push({
      accountId: account.id,
      date: `${today.slice(0, 7)}-01`,
      amountCents: -2500,
      categoryId: dining.id,
    })
    await bulkCreate(api, rows)

    await runInsightsJob()
    const list = expectStatus(await api.get(`${AI}/insights`), 200)
    // Fuel went over last month too (nothing assigned): two overspending insights.
    expect(list.items.map((i: any) => i.kind).sort()).toEqual([
      'category_trending_up',
      'overspending',
      'overspending',
      'unusual_charge',
    ])
    const byKind = Object.fromEntries(
      list.items
        .filter((i: any) => i.kind !== 'overspending' || i.evidence.categoryId === dining.id)
        .map((i: any) => [i.kind, i]),
    )
    expect(byKind.overspending).toMatchObject({
      severity: 'warning',
      periodStart: `${today.slice(0, 7)}-01`,
      evidence: { categoryId: dining.id, availableCents: '-2500', activityCents: '-2500' },
    })
    expect(byKind.unusual_charge.evidence).toMatchObject({
      amountCents: '-9500',
      payeeName: 'City Gym',
      history: { count: 4, medianCents: '3000', maxCents: '3000' },
    })
    expect(byKind.category_trending_up.evidence).toMatchObject({
      categoryId: fuel.id,
      spentCents: '12000',
      averageCents: '4000',
    })

    // Regenerating makes nothing new, dismissed or not.
    const dismissed = expectStatus(await api.post(`${AI}/insights/${byKind.unusual_charge.id}/dismiss`), 200)
    expect(dismissed).toMatchObject({ dismissed: true, dismissedAt: expect.any(String) })
    expect(
      expectStatus(await api.post(`${AI}/insights/${byKind.unusual_charge.id}/dismiss`), 200).dismissedAt,
    ).toBe(dismissed.dismissedAt)
    await runInsightsJob()
    expect(expectStatus(await api.get(`${AI}/insights`), 200).items).toHaveLength(3)
    const all = expectStatus(await api.get(`${AI}/insights?includeDismissed=true`), 200)
    expect(all.items).toHaveLength(4)
    expect(
      expectStatus(await api.get(`${AI}/insights?includeDismissed=true&kind=unusual_charge`), 200).items,
    ).toHaveLength(1)
    expect(
      expectStatus(
        await api.get(`${AI}/insights?periodStart=${byKind.category_trending_up.periodStart}`),
        200,
      )
        .items.map((i: any) => i.kind)
        .sort(),
    ).toEqual(['category_trending_up', 'overspending'])
    const page = expectStatus(await api.get(`${AI}/insights?includeDismissed=true&limit=2`), 200)
    const rest = expectStatus(
      await api.get(`${AI}/insights?includeDismissed=true&limit=2&cursor=${page.nextCursor}`),
      200,
    )
    expect([...page.items, ...rest.items].map((i: any) => i.id).sort()).toEqual(
      all.items.map((i: any) => i.id).sort(),
    )
    expectProblem(await api.post(`${AI}/insights/01ARZ3NDEKTSV4RRFFQ69G5FAV/dismiss`), 404, 'NOT_FOUND')
  })

  it('need read:insights to list and write:insights to dismiss, and stay in their household', async () => {
    const owner = await server.newOwner()
    const reader = await server.newMember(owner, 'member', ['read:insights'])
    expectStatus(await reader.api.get(`${AI}/insights`), 200)
    expectProblem(
      await reader.api.post(`${AI}/insights/01ARZ3NDEKTSV4RRFFQ69G5FAV/dismiss`),
      403,
      'INSUFFICIENT_SCOPE',
    )
    const stranger = await server.newOwner()
    expect(expectStatus(await stranger.api.get(`${AI}/insights?includeDismissed=true`), 200).items).toEqual(
      [],
    )
  })
})
