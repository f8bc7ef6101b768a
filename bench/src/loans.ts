import { type HouseholdContext, operations, runMutation, runQuery, SCOPES, type Store } from '@hearth/engine'
import { ulid } from 'ulidx'
import { benchArgs, openScratchStore } from './bench-store.ts'
import { type Comparison, printReport, time } from './stats.ts'

/**
 * `npx tsx bench/src/loans.ts [--store pglite|postgres|both]`: a 30-year loan's projection (360
 * rows of exact integer math, the ledger read of this month's payments and the terms read) and a
 * simulation that solves a target payoff month (a binary search over whole tables), each beside a
 * plain account read (`accounts.get`) measured in the same run, on a scratch store of its own.
 */
async function main(): Promise<void> {
  const { stores } = benchArgs()
  const rows: Comparison[] = []
  for (const name of stores) {
    const { store, drop } = await openScratchStore(name, 'loans', { durable: false })
    try {
      const { ctx, loan } = await seed(store)
      const read = await time(() => runQuery(store.db, operations.accounts.get, { id: loan }, ctx))
      rows.push({
        store: name,
        measure: 'loan projection, 30 years (baseline: accounts.get)',
        engine: await time(() => runQuery(store.db, operations.loans.projection, { id: loan }, ctx)),
        baseline: read,
      })
      rows.push({
        store: name,
        measure: 'loan simulation, target payoff in 15 years',
        engine: await time(() =>
          runQuery(
            store.db,
            operations.loans.simulation,
            { id: loan, targetPayoffYearMonth: '2041-06' },
            ctx,
          ),
        ),
        baseline: read,
      })
    } finally {
      await store.close()
      await drop()
    }
  }
  printReport(rows)
}

/** A household with a $200,000 mortgage at 6.5% over 30 years, begun a year ago, and a payment this month. */
async function seed(store: Store): Promise<{ ctx: HouseholdContext; loan: string }> {
  const userId = ulid()
  const householdId = ulid()
  const now = new Date()
  const actor = { userId, scopes: [...SCOPES], now }
  const ctx: HouseholdContext = { ...actor, householdId, role: 'owner' }
  const run = (mutator: any, args: unknown) => runMutation(store.db, mutator, args, ctx)
  await runMutation(store.db, operations.users.create, { id: userId, name: 'Bench owner' }, actor)
  await run(operations.households.create, { id: householdId, name: 'Loan bench' })
  const loan = ulid()
  await run(operations.accounts.create, {
    id: loan,
    name: 'Mortgage',
    type: 'loan',
    openingBalanceCents: -20_000_000,
  })
  const start = `${now.getUTCFullYear() - 1}-${String(now.getUTCMonth() + 1).padStart(2, '0')}-01`
  await run(operations.loans.setTerms, {
    id: loan,
    effectiveDate: start,
    principalCents: 20_000_000,
    annualRatePercent: '6.5',
    termMonths: 360,
    escrowCents: 30_000,
    firstPaymentDate: start,
  })
  const today = now.toISOString().slice(0, 10)
  await run(operations.transactions.create, {
    id: ulid(),
    accountId: loan,
    date: today,
    amountCents: 156_414,
  })
  return { ctx, loan }
}

await main()
