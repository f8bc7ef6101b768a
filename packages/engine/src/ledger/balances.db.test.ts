import { EngineError, operations } from '@hearth/engine'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { expectBalancesExact, ledgerHousehold, newAccount, newTransaction } from './test-fixture.ts'

/** A small deterministic generator, so a failing sequence can be replayed. */
function random(seed: number) {
  let s = seed >>> 0
  const next = () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0
    return s / 2 ** 32
  }
  return {
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!,
  }
}

describe('maintained balances', () => {
  it('equal the sum of live rows after a long random mix of every kind of change', async () => {
    const h = await ledgerHousehold()
    const r = random(20240310)
    const accounts = [
      await newAccount(h, { openingBalanceCents: 100000, openingBalanceDate: '2024-03-01' }),
      await newAccount(h, { name: 'Card', type: 'credit' }),
      await newAccount(h, { name: 'Savings', openingBalanceCents: 5000, openingBalanceDate: '2024-03-01' }),
    ].map((a) => a.id)
    const rows: string[] = []
    const day = () => `2024-03-${String(r.int(1, 28)).padStart(2, '0')}`
    const amount = () => r.int(-50000, 20000)
    const ops: (() => Promise<unknown>)[] = [
      async () =>
        rows.push((await newTransaction(h, r.pick(accounts), { date: day(), amountCents: amount() })).id),
      async () => {
        const a = -r.int(2, 9000)
        const part = r.int(1, -a - 1)
        const t = await newTransaction(h, r.pick(accounts), {
          date: day(),
          amountCents: a,
          status: 'cleared',
          splits: [{ amountCents: -part }, { amountCents: a + part }],
        })
        rows.push(t.id)
      },
      () =>
        h.run(operations.transactions.update, {
          id: r.pick(rows),
          amountCents: amount(),
          status: r.pick(['pending', 'cleared']),
        }),
      () =>
        h.run(operations.transactions.update, {
          id: r.pick(rows),
          accountId: r.pick(accounts),
          splits: [],
        }),
      () => h.run(operations.transactions.delete, { id: r.pick(rows) }),
      async () => {
        const [from, to] = [r.pick(accounts), r.pick(accounts)]
        const t = await h.run(operations.transactions.transfer, {
          fromAccountId: from,
          toAccountId: to,
          amountCents: r.int(1, 9999),
          date: day(),
          status: r.pick(['pending', 'cleared']),
          fromTransactionId: ulid(),
          toTransactionId: ulid(),
        })
        rows.push(t.from.id, t.to.id)
      },
      () =>
        h.run(operations.accounts.reconcile, {
          id: r.pick(accounts),
          statementBalanceCents: r.int(-100000, 100000),
          statementDate: day(),
          adjustmentId: ulid(),
        }),
      async () => {
        const accountId = r.pick(accounts)
        const hand = await newTransaction(h, accountId, { date: '2024-03-15', amountCents: -777 })
        rows.push(hand.id)
        const result = await h.run(operations.transactions.bulkCreate, {
          transactions: [
            { id: ulid(), accountId, date: day(), amountCents: -777, importedId: ulid() },
            { id: ulid(), accountId, date: day(), amountCents: amount(), importedId: ulid() },
          ],
        })
        rows.push(...result.items.map((t) => t.id))
      },
      () => h.run(operations.transactions.unmatch, { id: r.pick(rows) }),
      () =>
        h.run(operations.transactions.bulkUpdate, {
          ids: [...new Set([r.pick(rows), r.pick(rows), r.pick(rows)])],
          patch: { status: r.pick(['pending', 'cleared']) },
        }),
    ]
    let refused = 0
    for (let i = 0; i < 150; i++) {
      const op = rows.length < 5 ? ops[0]! : r.pick(ops)
      try {
        await op()
      } catch (error) {
        if (!(error instanceof EngineError)) throw error
        refused++
      }
      if (i % 25 === 24) await expectBalancesExact(h)
    }
    await expectBalancesExact(h)
    expect(refused).toBeGreaterThan(0)
    for (const id of accounts) {
      const account = await h.read(operations.accounts.get, { id })
      const history = await h.read(operations.accounts.balanceHistory, {
        id,
        fromDate: '2024-03-01',
        toDate: '2024-04-30',
      })
      expect(history.points.at(-1)?.balanceCents).toBe(account.balanceCents)
    }
  })
})
