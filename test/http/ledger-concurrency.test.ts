import { describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { expectStatus, H } from './catalog-fixture.ts'
import { createAccount, expectBalancesExact, listAll } from './ledger-fixture.ts'

const server = useTestServer()

describe('concurrent ledger writes over HTTP', () => {
  it('keeps balances exact when many writes to one account race', async () => {
    const { api } = await server.newOwner()
    const checking = await createAccount(api, {
      openingBalanceCents: 1_000,
      openingBalanceDate: '2025-01-01',
    })
    const savings = await createAccount(api, { name: 'Savings' })
    const writes = Array.from({ length: 40 }, (_, i) => {
      if (i % 4 === 0) {
        return api.post(`${H}/transactions/transfer`, {
          fromAccountId: checking.id,
          toAccountId: savings.id,
          amountCents: 100 + i,
          date: '2025-02-01',
          status: 'cleared',
        })
      }
      return api.post(`${H}/transactions`, {
        accountId: checking.id,
        date: '2025-02-01',
        amountCents: i % 2 === 0 ? -i : i * 3,
        status: i % 3 === 0 ? 'cleared' : 'pending',
      })
    })
    for (const res of await Promise.all(writes)) expect(res.status, JSON.stringify(res.body)).toBe(201)
    await expectBalancesExact(api, checking.id)
    await expectBalancesExact(api, savings.id)
  })

  it('imports the same statement twice at once without duplicating a row', async () => {
    const { api } = await server.newOwner()
    const account = await createAccount(api)
    const statement = Array.from({ length: 50 }, (_, i) => ({
      accountId: account.id,
      date: '2025-02-01',
      amountCents: -(i + 1),
      importedId: `race-${i}`,
    }))
    const results = await Promise.all(
      [1, 2, 3].map(async () =>
        expectStatus(await api.post(`${H}/transactions/bulk`, { transactions: statement }), 201),
      ),
    )
    expect(results.map((r) => r.createdCount).sort()).toEqual([0, 0, 50])
    expect(results.map((r) => r.skippedCount).sort()).toEqual([0, 50, 50])
    expect(await listAll(api, `accountId=${account.id}`)).toHaveLength(50)
    expect((await expectBalancesExact(api, account.id)).balanceCents).toBe(String(-(50 * 51) / 2))
  })
})
