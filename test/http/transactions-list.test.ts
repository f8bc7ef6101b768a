import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { type ApiClient, useTestServer } from '../src/index.ts'
import { createCategory, createGroup, expectProblem, expectStatus, H } from './catalog-fixture.ts'
import { bulkCreate, createAccount, expectBalancesExact, listAll } from './ledger-fixture.ts'

const server = useTestServer()

type Row = Record<string, any>
type Predicate = (row: Row) => boolean

const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)

/** Sort key order of the list: date descending, then id descending. */
const before = (a: Row, b: Row) => a.date > b.date || (a.date === b.date && a.id > b.id)

/**
 * A household of 1,000 generated rows over three accounts (one of them fed by imports),
 * with categories, payees, splits, tags, flags, transfers and a reconcile.
 */
async function seedLedger(api: ApiClient) {
  const checking = await createAccount(api, {
    name: 'Checking',
    openingBalanceCents: 500_000,
    openingBalanceDate: '2024-12-01',
  })
  const card = await createAccount(api, { name: 'Card', type: 'credit' })
  const brokerage = await createAccount(api, { name: 'Brokerage', type: 'tracking' })
  const group = await createGroup(api, 'Spending')
  const categories = [
    await createCategory(api, group.id, 'Food'),
    await createCategory(api, group.id, 'Rent'),
    await createCategory(api, group.id, 'Fun'),
  ]
  const tags: any[] = []
  for (const name of ['Trip', 'Work', 'Kids'])
    tags.push(expectStatus(await api.post(`${H}/tags`, { name }), 201))
  const flags = expectStatus(await api.get(`${H}/flags`), 200).items.slice(0, 2)
  const payeeNames = ['Corner Shop', 'Landlord', 'Cinema Paradiso']

  const rows = Array.from({ length: 1000 }, (_, i) => {
    const accountId = i % 10 < 6 ? checking.id : i % 10 < 8 ? card.id : brokerage.id
    const imported = accountId === card.id
    const amountCents = i % 5 === 0 ? 1_000 + i : -(100 + ((i * 37) % 5_000))
    const split = !imported && i % 13 === 0
    const half = Math.trunc(amountCents / 2)
    return {
      accountId,
      date: addDays('2025-01-01', i % 61),
      amountCents: i % 2 === 0 ? amountCents : String(amountCents),
      ...(imported ? { importedId: `imp-${i}` } : { status: i % 2 === 0 ? 'pending' : 'cleared' }),
      ...(!imported && i % 7 === 0 && { source: 'ai' }),
      ...(!imported && i % 11 === 0 && i % 7 !== 0 && { source: 'recurring' }),
      ...(split
        ? {
            splits: [
              { amountCents: half, categoryId: categories[0].id, memo: 'split part' },
              { amountCents: amountCents - half, categoryId: categories[2].id },
            ],
          }
        : i % 4 !== 0 && { categoryId: categories[i % 3].id }),
      ...(i % 9 !== 0 && { payeeName: payeeNames[i % 3] }),
      ...(i % 6 === 0 && { memo: 'Weekly groceries' }),
      ...(i % 6 === 1 && { memo: 'Birthday GIFT' }),
      ...(i % 50 === 25 && { memo: '100% juice' }),
      ...(i % 3 === 0 && { tagIds: i % 5 === 0 ? [tags[0].id, tags[1].id] : [tags[0].id] }),
      ...(i % 3 !== 0 && i % 8 === 0 && { tagIds: [tags[2].id] }),
      ...(i % 10 === 3 && { flagIds: [flags[0].id] }),
      ...(i % 10 === 7 && { flagIds: [flags[0].id, flags[1].id] }),
      ...(i % 17 === 0 && { needsReview: true }),
    }
  })
  const first = await bulkCreate(api, rows.slice(0, 500))
  const second = await bulkCreate(api, rows.slice(500))
  expect(first.createdCount + second.createdCount).toBe(1000)
  for (let i = 0; i < 5; i++) {
    expectStatus(
      await api.post(`${H}/transactions/transfer`, {
        fromAccountId: checking.id,
        toAccountId: brokerage.id,
        amountCents: 10_000 + i,
        date: addDays('2025-01-05', i * 7),
        status: 'cleared',
      }),
      201,
    )
  }
  expectStatus(
    await api.post(`${H}/accounts/${brokerage.id}/reconcile`, {
      statementBalanceCents: 0,
      statementDate: '2025-01-20',
    }),
    200,
  )
  const payees = expectStatus(await api.get(`${H}/payees`), 200).items
  return { checking, card, brokerage, categories, tags, flags, payees }
}

describe('listing transactions over HTTP', () => {
  it('pages through 1,000 rows with every filter while rows are inserted, skipping and repeating none', async () => {
    const { api } = await server.newOwner()
    const seed = await seedLedger(api)
    const known = new Map<string, Row>()
    for (const row of await listAll(api)) known.set(row.id, row)
    expect(known.size).toBe(1000 + 10 + 1 + 1)

    const accountType = new Map([
      [seed.checking.id, 'cash'],
      [seed.card.id, 'credit'],
      [seed.brokerage.id, 'tracking'],
    ])
    const payeeName = new Map(seed.payees.map((p: Row) => [p.id, p.name]))
    const categoryName = new Map(seed.categories.map((c: Row) => [c.id, c.name]))
    const bareOutflow: Predicate = (r) =>
      BigInt(r.amountCents) < 0n &&
      r.categoryId === null &&
      r.kind === 'normal' &&
      r.transferGroupId === null &&
      r.splits.length === 0 &&
      ['cash', 'credit'].includes(accountType.get(r.accountId)!)
    const needsReview: Predicate = (r) => r.needsReview || r.suggestedCategoryId !== null
    const searchFor =
      (term: string): Predicate =>
      (r) => {
        const texts = [
          r.memo,
          payeeName.get(r.payeeId),
          categoryName.get(r.categoryId),
          ...r.splits.flatMap((s: Row) => [s.memo, payeeName.get(s.payeeId), categoryName.get(s.categoryId)]),
        ]
        return texts.some((t) => typeof t === 'string' && t.toLowerCase().includes(term.toLowerCase()))
      }
    const [trip, work, kids] = seed.tags.map((t: Row) => t.id)
    const [red, blue] = seed.flags.map((f: Row) => f.id)
    const food = seed.categories[0].id
    const corner = seed.payees.find((p: Row) => p.name === 'Corner Shop').id
    const amount = (r: Row) => Number(r.amountCents)

    const filters: [string, Predicate][] = [
      ['', () => true],
      [`accountId=${seed.card.id}`, (r) => r.accountId === seed.card.id],
      ['dateFrom=2025-01-10&dateTo=2025-01-20', (r) => r.date >= '2025-01-10' && r.date <= '2025-01-20'],
      ['minAmountCents=-2000&maxAmountCents=-500', (r) => amount(r) >= -2000 && amount(r) <= -500],
      ['minAmountCents=0', (r) => amount(r) >= 0],
      ['source=imported', (r) => r.source === 'imported'],
      ['source=ai', (r) => r.source === 'ai'],
      ['status=reconciled', (r) => r.status === 'reconciled'],
      ['status=reconciled&statuses=pending,cleared', (r) => r.status !== 'reconciled'],
      ['statuses=pending', (r) => r.status === 'pending'],
      ['attention=true', (r) => needsReview(r) || (bareOutflow(r) && r.status !== 'reconciled')],
      ['attention=false', (r) => !(needsReview(r) || (bareOutflow(r) && r.status !== 'reconciled'))],
      ['uncategorized=true', (r) => bareOutflow(r) && r.status !== 'pending'],
      ['needsReview=true', needsReview],
      ['needsReview=false', (r) => !needsReview(r)],
      ['hasFlag=true', (r) => r.flagIds.length > 0],
      ['hasFlag=false', (r) => r.flagIds.length === 0],
      [`flagIds=${blue},${ulid()}`, (r) => r.flagIds.includes(blue)],
      [`flagIds=${red}`, (r) => r.flagIds.includes(red)],
      ['hasTag=true', (r) => r.tagIds.length > 0],
      ['hasTag=false', (r) => r.tagIds.length === 0],
      [`tagIds=${trip},${kids}`, (r) => r.tagIds.includes(trip) || r.tagIds.includes(kids)],
      [`tagIds=${trip},${work}&tagMode=all`, (r) => r.tagIds.includes(trip) && r.tagIds.includes(work)],
      [`tagIds=${work}&tagId=${kids}&tagMode=any`, (r) => r.tagIds.includes(work) || r.tagIds.includes(kids)],
      [`tagId=${kids}`, (r) => r.tagIds.includes(kids)],
      [`payeeId=${corner}`, (r) => r.payeeId === corner || r.splits.some((s: Row) => s.payeeId === corner)],
      [
        `categoryId=${food}`,
        (r) => r.categoryId === food || r.splits.some((s: Row) => s.categoryId === food),
      ],
      ['search=GROC', searchFor('groc')],
      ['search=cinema', searchFor('cinema')],
      ['search=rent', searchFor('rent')],
      ['search=split%20part', searchFor('split part')],
      ['search=%25', searchFor('%')],
      [
        `accountId=${seed.checking.id}&hasTag=true&statuses=cleared&search=shop`,
        (r) =>
          r.accountId === seed.checking.id &&
          r.tagIds.length > 0 &&
          r.status === 'cleared' &&
          searchFor('shop')(r),
      ],
    ]

    let inserted = 0
    for (const [query, predicate] of filters) {
      const expected = [...known.values()].filter(predicate)
      if (query !== '') {
        // Every filter selects a real subset, so a filter that is ignored would fail.
        expect(expected.length, query).toBeGreaterThan(0)
        expect(expected.length, query).toBeLessThan(known.size)
      }
      const seen: Row[] = []
      const olderInserts: Row[] = []
      let cursor: string | null = null
      let page = 0
      do {
        const params = new URLSearchParams(query)
        params.set('limit', query === '' ? '10' : '40')
        if (cursor) params.set('cursor', cursor)
        const res: Row = expectStatus(await api.get(`${H}/transactions?${params}`), 200)
        seen.push(...res.items)
        cursor = res.nextCursor
        // Insert a row between pages: alternately newer and older than the last row read.
        const last = res.items.at(-1)
        if (cursor && last) {
          const date = page % 2 === 0 ? addDays(last.date, 3) : addDays(last.date, -2)
          const row = expectStatus(
            await api.post(`${H}/transactions`, {
              accountId: page % 3 === 0 ? seed.card.id : seed.checking.id,
              date,
              amountCents: page % 2 === 0 ? -1_234 : 4_321,
              payeeName: 'Corner Shop',
              memo: 'inserted while paging',
              status: 'cleared',
              tagIds: page % 4 === 0 ? [trip] : [],
            }),
            201,
          )
          inserted++
          known.set(row.id, row)
          if (before(last, row)) olderInserts.push(row)
        }
        page++
      } while (cursor)

      const ids = seen.map((r) => r.id)
      expect(new Set(ids).size, `${query}: a row was read twice`).toBe(ids.length)
      for (let i = 1; i < seen.length; i++) expect(before(seen[i - 1]!, seen[i]!), query).toBe(true)
      const read = new Set(ids)
      const missing = expected.filter((r) => !read.has(r.id)).map((r) => r.id)
      expect(missing, `${query}: rows were skipped`).toEqual([])
      // Rows inserted behind the cursor that match show up exactly once on a later page.
      const lateMatches = olderInserts.filter(predicate).filter((r) => !read.has(r.id))
      expect(lateMatches, `${query}: rows inserted behind the cursor were skipped`).toEqual([])
      // Nothing outside the filter comes back.
      for (const row of seen) {
        const model = known.get(row.id)
        if (model) expect(predicate(model), `${query}: ${row.id} does not match`).toBe(true)
      }
    }
    expect(inserted).toBeGreaterThan(100)

    // The local model is the ledger: every row accounted for, balances equal to listed sums.
    const all = await listAll(api)
    expect(all.map((r) => r.id).sort()).toEqual([...known.keys()].sort())
    for (const account of [seed.checking, seed.card, seed.brokerage])
      await expectBalancesExact(api, account.id)
  }, 300_000)

  it('defaults to 50 rows, caps limit at 100 and refuses a limit below 1 or not whole', async () => {
    const { api } = await server.newOwner()
    const account = await createAccount(api)
    await bulkCreate(
      api,
      Array.from({ length: 120 }, (_, i) => ({
        accountId: account.id,
        date: '2025-02-01',
        amountCents: -(i + 1),
      })),
    )
    const page = expectStatus(await api.get(`${H}/transactions`), 200)
    expect(page.items).toHaveLength(50)
    expect(page.nextCursor).toEqual(expect.any(String))
    expect(expectStatus(await api.get(`${H}/transactions?limit=100`), 200).items).toHaveLength(100)
    expect(expectStatus(await api.get(`${H}/transactions?limit=1`), 200).items).toHaveLength(1)
    const end = expectStatus(await api.get(`${H}/transactions?limit=100&cursor=${page.nextCursor}`), 200)
    expect(end).toMatchObject({ nextCursor: null })
    expect(end.items).toHaveLength(70)
    for (const limit of ['101', '100000', '99999999999999999999']) {
      expect(expectStatus(await api.get(`${H}/transactions?limit=${limit}`), 200).items).toHaveLength(100)
    }
    for (const limit of ['0', '-1', '1.5', 'ten', '']) {
      const problem = expectProblem(
        await api.get(`${H}/transactions?limit=${limit}`),
        400,
        'VALIDATION_FAILED',
      )
      expect(problem.errors).toEqual([expect.objectContaining({ path: 'limit' })])
    }
  })

  it('refuses bad filters with 400 and a stable code', async () => {
    const { api } = await server.newOwner()
    const ids = (n: number) => Array.from({ length: n }, () => ulid()).join(',')
    expect(
      expectStatus(await api.get(`${H}/transactions?flagIds=${ids(20)}&tagIds=${ids(20)}`), 200).items,
    ).toEqual([])
    const bad = [
      `flagIds=${ids(21)}`,
      `tagIds=${ids(21)}`,
      'status=done',
      'statuses=pending,done',
      'source=bank',
      'tagMode=some',
      'attention=yes',
      'hasTag=1',
      'dateFrom=2025-1-1',
      'dateTo=2025-02-30',
      'minAmountCents=12.5',
      'maxAmountCents=abc',
      'page=2',
    ]
    for (const query of bad) {
      expectProblem(await api.get(`${H}/transactions?${query}`), 400, 'VALIDATION_FAILED')
    }
    for (const cursor of ['nonsense', 'djF8MjAyNS0wMS0wMXw', btoa('v1|2025-13-01|x'), '%2F%2F']) {
      expectProblem(await api.get(`${H}/transactions?cursor=${cursor}`), 400, 'INVALID_CURSOR')
    }
  })
})
