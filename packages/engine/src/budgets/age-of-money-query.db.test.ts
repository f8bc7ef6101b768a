import { operations } from '@hearth/engine'
import { sql } from 'kysely'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { ledgerHousehold, newAccount } from '../ledger/test-fixture.ts'
import { ageOfMoney, type CashFlow, roundHalfUp } from './age-of-money.ts'

/** A small deterministic generator, so a failure replays. */
function lcg(seed: number) {
  let s = seed >>> 0
  return (n: number) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s % n
  }
}

function day(n: number): string {
  return new Date(Date.UTC(2026, 0, 1 + n)).toISOString().slice(0, 10)
}

describe('budgets.ageOfMoney over a random ledger', () => {
  for (const seed of [1, 2, 3]) {
    it(`equals the bucket math over every counted row, one by one (seed ${seed})`, async () => {
      const h = await ledgerHousehold()
      const rand = lcg(seed)
      const checking = await newAccount(h, { name: 'Checking' })
      const savings = await newAccount(h, { name: 'Savings' })
      const brokerage = await newAccount(h, { name: 'Brokerage', type: 'tracking' })
      const card = await newAccount(h, { name: 'Visa', type: 'credit' })
      const cash = [checking.id, savings.id]
      // What the figure should count: rows on the cash accounts, but no leg of a transfer between them.
      const counted: CashFlow[] = []
      const deleted = new Set<string>()

      for (let step = 0; step < 90; step++) {
        const date = day(rand(120))
        const amount = 1 + rand(50_000)
        const account = cash[rand(2)] as string
        const kind = rand(10)
        if (kind < 3) {
          const id = ulid()
          await h.run(operations.transactions.create, { id, accountId: account, date, amountCents: amount })
          counted.push({ id, date, amountCents: BigInt(amount) })
        } else if (kind < 7) {
          const id = ulid()
          await h.run(operations.transactions.create, { id, accountId: account, date, amountCents: -amount })
          counted.push({ id, date, amountCents: BigInt(-amount) })
          if (rand(8) === 0) {
            await h.run(operations.transactions.delete, { id })
            deleted.add(id)
          }
        } else {
          const to =
            kind === 7 ? (cash.find((c) => c !== account) as string) : kind === 8 ? brokerage.id : card.id
          const fromTransactionId = ulid()
          await h.run(operations.transactions.transfer, {
            fromAccountId: account,
            toAccountId: to,
            amountCents: amount,
            date,
            fromTransactionId,
            toTransactionId: ulid(),
          })
          if (kind !== 7) counted.push({ id: fromTransactionId, date, amountCents: BigInt(-amount) })
        }
        if (rand(4) === 0) {
          await h.run(operations.transactions.create, {
            id: ulid(),
            accountId: card.id,
            date,
            amountCents: -amount,
          })
        }
      }

      // Read once from the rows, then again going on from the months the report keeps.
      const kept = async () =>
        (
          await sql<{ n: number }>`select count(*)::int as n from report_closings
            where household_id = ${h.ctx.householdId} and report = 'ageOfMoney'`.execute(h.store.db)
        ).rows[0]!.n
      for (const pass of ['from every row', 'from kept months']) {
        if (pass === 'from kept months') {
          await h.read(
            operations.reports.ageOfMoney,
            { fromMonth: '2026-01', toMonth: '2026-08' },
            {
              now: new Date('2026-09-15T12:00:00Z'),
            },
          )
          expect(await kept()).toBe(8)
        } else expect(await kept()).toBe(0)
        for (const asOf of [day(30), day(75), day(200)]) {
          const rows = counted
            .filter((f) => !deleted.has(f.id as string) && f.date <= asOf)
            .sort((a, b) =>
              a.date < b.date ? -1 : a.date > b.date ? 1 : (a.id as string) < (b.id as string) ? -1 : 1,
            )
          const expected = ageOfMoney(rows)
          const answer = await h.read(operations.budgets.ageOfMoney, { asOf })
          expect(answer.asOf).toBe(asOf)
          // The whole ledger holds well over ten outflows, so the figure is not null there.
          if (asOf === day(200)) expect(answer.days).not.toBeNull()
          expect(answer.days).toBe(expected?.days ?? null)
          expect(answer.outflows).toEqual(
            (expected?.outflows ?? []).map((o) => ({
              transactionId: o.id,
              date: o.date,
              amountCents: String(o.amountCents),
              ageDays: roundHalfUp(o.ageNumerator, o.ageDenominator),
            })),
          )
        }
      }
    })
  }
})
