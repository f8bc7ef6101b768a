import { ulid } from 'ulidx'
import { afterEach, describe, expect, it } from 'vitest'
import { expectOk } from '../src/answers.ts'
import { newOwner, useTestServer } from '../src/index.ts'
import { closeDevices, eventually, newDevice } from './devices.ts'

const server = useTestServer()
afterEach(async () => {
  await closeDevices()
})

const H = '/households/current'

describe('reports over REST and on the device', () => {
  it('answers the four reports on the replica exactly as REST does, and live', {
    timeout: 120_000,
  }, async () => {
    const owner = await newOwner(server)
    const { api } = owner
    await expectOk(api.put(`${H}/exchange-rates/EUR/USD`, { rate: '1.08' }))
    const checking = await expectOk(
      api.post(`${H}/accounts`, {
        name: 'Checking',
        type: 'cash',
        openingBalanceCents: 250_000,
        openingBalanceDate: '2025-01-01',
      }),
    )
    const card = await expectOk(api.post(`${H}/accounts`, { name: 'Visa', type: 'credit' }))
    const euros = await expectOk(api.post(`${H}/accounts`, { name: 'Euro', type: 'cash', currency: 'EUR' }))
    const group = await expectOk(api.post(`${H}/category-groups`, { name: 'Living' }))
    const food = await expectOk(api.post(`${H}/categories`, { groupId: group.id, name: 'Food' }))
    const rent = await expectOk(api.post(`${H}/categories`, { groupId: group.id, name: 'Rent' }))
    for (let m = 1; m <= 6; m++) {
      const month = `2025-0${m}`
      await expectOk(
        api.post(`${H}/transactions`, {
          accountId: checking.id,
          date: `${month}-01`,
          amountCents: 400_000,
          payeeName: 'Employer',
        }),
      )
      await expectOk(
        api.post(`${H}/transactions`, {
          accountId: checking.id,
          date: `${month}-03`,
          amountCents: -150_000,
          payeeName: 'Landlord',
          categoryId: rent.id,
        }),
      )
      await expectOk(
        api.post(`${H}/transactions`, {
          accountId: card.id,
          date: `${month}-10`,
          amountCents: -(20_000 + m * 1_111),
          payeeName: 'Grocer',
          categoryId: food.id,
        }),
      )
      await expectOk(
        api.post(`${H}/transactions`, {
          accountId: euros.id,
          date: `${month}-12`,
          amountCents: -(999 + m),
          payeeName: 'Boulangerie',
          categoryId: food.id,
        }),
      )
      await expectOk(
        api.post(`${H}/transactions/transfer`, {
          fromAccountId: checking.id,
          toAccountId: card.id,
          amountCents: 20_000,
          date: `${month}-20`,
        }),
      )
    }
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()

    const months = { fromMonth: '2024-12', toMonth: '2025-07' }
    const range = { fromDate: '2025-02-01', toDate: '2025-05-31' }
    const asks = [
      ['net-worth', 'netWorth', months],
      ['cash-flow', 'cashFlow', months],
      ['age-of-money', 'ageOfMoney', months],
      ['spending', 'spending', { ...range, groupBy: 'category' }],
      ['spending', 'spending', { ...range, groupBy: 'payee' }],
    ] as const
    for (const [path, name, args] of asks) {
      const rest = await expectOk(api.get(`${H}/reports/${path}?${new URLSearchParams(args)}`))
      expect(
        await (device.query.reports[name] as (a: object) => Promise<unknown>)(args),
        `${name} ${JSON.stringify(args)}`,
      ).toEqual(rest)
    }

    const cash = await expectOk(api.get(`${H}/reports/cash-flow?fromMonth=2025-01&toMonth=2025-02`))
    // 4,000 in; 1,500 rent + 211.11 food + 10.00 € at 1.08 (10.80): 1,721.91 out. The transfer is neither.
    expect(cash.months[0]).toEqual({
      month: '2025-01',
      incomeCents: '400000',
      spendingCents: '172191',
      netCents: '227809',
    })
    const worth = await expectOk(api.get(`${H}/reports/net-worth?fromMonth=2025-01&toMonth=2025-01`))
    // Checking 2,500 + 4,000 - 1,500 - 200 = 4,800; card -211.11 + 200 = -11.11; euros -10.00 € -> -10.80.
    expect(worth.months[0]).toMatchObject({
      assetsCents: '480000',
      liabilitiesCents: '2191',
      netWorthCents: '477809',
    })
    const spending = await expectOk(
      api.get(`${H}/reports/spending?fromDate=2025-01-01&toDate=2025-01-31&groupBy=payee`),
    )
    expect(spending.groups.map((g: { name: string }) => g.name)).toEqual([
      'Landlord',
      'Grocer',
      'Boulangerie',
      'Employer',
    ])

    // A watch on the replica follows a new row at once, before any round trip.
    const seen: string[] = []
    const stop = device.watch('reports.cashFlow', { fromMonth: '2025-06', toMonth: '2025-06' }, (r) => {
      seen.push(r.months[0]!.spendingCents)
    })
    await eventually(() => expect(seen.length).toBeGreaterThan(0))
    const before = BigInt(seen.at(-1)!)
    await device.mutate.transactions.create({
      id: ulid(),
      accountId: checking.id,
      date: '2025-06-15',
      amountCents: -4_200,
    })
    await eventually(() => expect(BigInt(seen.at(-1)!)).toBe(before + 4_200n))
    stop()
    await device.sync.whenSynced()
    expect(await device.query.reports.cashFlow({ fromMonth: '2025-06', toMonth: '2025-06' })).toEqual(
      await expectOk(api.get(`${H}/reports/cash-flow?fromMonth=2025-06&toMonth=2025-06`)),
    )
  })

  it('checks the scope, and answers bad ranges with clear errors', async () => {
    const owner = await newOwner(server, ['read:accounts', 'read:households'])
    const refused = await owner.api.get(`${H}/reports/net-worth`)
    expect([refused.status, refused.body.code]).toEqual([403, 'INSUFFICIENT_SCOPE'])
    const full = await newOwner(server)
    const backward = await full.api.get(`${H}/reports/cash-flow?fromMonth=2025-05&toMonth=2025-01`)
    expect([backward.status, backward.body.code]).toEqual([400, 'INVALID_DATE_RANGE'])
    const wide = await full.api.get(`${H}/reports/age-of-money?fromMonth=1990-01&toMonth=2025-01`)
    expect([wide.status, wide.body.code]).toEqual([400, 'WINDOW_TOO_LARGE'])
    const bad = await full.api.get(`${H}/reports/net-worth?toMonth=2025-1`)
    expect([bad.status, bad.body.code, bad.body.errors[0].path]).toEqual([
      400,
      'VALIDATION_FAILED',
      'toMonth',
    ])
    const unknown = await full.api.get(`${H}/reports/spending?fromDate=2025-01-01&toDate=2025-01-31&by=payee`)
    expect([unknown.status, unknown.body.code]).toEqual([400, 'VALIDATION_FAILED'])
    const defaults = await full.api.get(`${H}/reports/net-worth`)
    expect(defaults.body.months).toHaveLength(12)
    // The assistant's tools come from the registry: every report is one, as a read.
    const tools = await full.api.get(`${H}/ai/tools`)
    expect(tools.body.names).toEqual(
      expect.arrayContaining([
        'reports_netWorth',
        'reports_cashFlow',
        'reports_spending',
        'reports_ageOfMoney',
      ]),
    )
    expect(tools.body.tools.find((t: { name: string }) => t.name === 'reports_netWorth').kind).toBe('read')
  })
})
