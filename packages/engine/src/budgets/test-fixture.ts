/** Helpers for the budget's database tests: a household with accounts, categories and short calls. */
import { type BudgetMonthSnapshot, type HouseholdContext, operations } from '@hearth/engine'
import { ulid } from 'ulidx'
import { type LedgerHousehold, ledgerHousehold } from '../ledger/test-fixture.ts'

/** A household for budget tests, with shortcuts in budget words. */
export interface BudgetHousehold extends LedgerHousehold {
  group(name?: string, isIncome?: boolean): Promise<string>
  category(groupId: string, name: string): Promise<string>
  account(
    type: 'cash' | 'credit' | 'loan' | 'tracking',
    openingBalanceCents?: number,
    date?: string,
  ): Promise<string>
  spend(accountId: string, categoryId: string | null, cents: number, date: string): Promise<string>
  transfer(fromAccountId: string, toAccountId: string, cents: number, date: string): Promise<void>
  assign(month: string, categoryId: string, cents: number, ctx?: Partial<HouseholdContext>): Promise<unknown>
  move(month: string, fromCategoryId: string, toCategoryId: string, cents: number): Promise<unknown>
  month(month: string): Promise<BudgetMonthSnapshot>
  /** A category of a month's snapshot, by id, as numbers. */
  cell(
    snapshot: BudgetMonthSnapshot,
    id: string,
  ): {
    carriedIn: number
    assigned: number
    activity: number
    available: number
    cashOver: number
    creditOver: number
    state: string
  }
}

export async function budgetHousehold(): Promise<BudgetHousehold> {
  const h = await ledgerHousehold()
  return {
    ...h,
    async group(name = `Group ${ulid()}`, isIncome = false) {
      const id = ulid()
      await h.run(operations.categoryGroups.create, { id, name, isIncome })
      return id
    },
    async category(groupId, name) {
      const id = ulid()
      await h.run(operations.categories.create, { id, groupId, name })
      return id
    },
    async account(type, openingBalanceCents, date = '2024-01-01') {
      const id = ulid()
      await h.run(operations.accounts.create, {
        id,
        name: `${type} ${id.slice(-4)}`,
        type,
        ...(openingBalanceCents !== undefined && { openingBalanceCents, openingBalanceDate: date }),
      })
      return id
    },
    async spend(accountId, categoryId, cents, date) {
      const id = ulid()
      await h.run(operations.transactions.create, { id, accountId, categoryId, amountCents: cents, date })
      return id
    },
    async transfer(fromAccountId, toAccountId, cents, date) {
      await h.run(operations.transactions.transfer, {
        fromAccountId,
        toAccountId,
        amountCents: cents,
        date,
        fromTransactionId: ulid(),
        toTransactionId: ulid(),
      })
    },
    assign(month, categoryId, cents, ctx) {
      return h.run(
        operations.budgets.assign,
        { month, categoryId, assignedCents: cents, historyId: ulid() },
        ctx,
      )
    },
    move(month, fromCategoryId, toCategoryId, cents) {
      return h.run(operations.budgets.move, {
        month,
        fromCategoryId,
        toCategoryId,
        amountCents: cents,
        historyId: ulid(),
      })
    },
    month(month) {
      return h.read(operations.budgets.get, { month })
    },
    cell(snapshot, id) {
      for (const g of snapshot.groups) {
        const c = g.categories.find((x) => x.id === id)
        if (c) {
          return {
            carriedIn: Number(c.carriedInCents),
            assigned: Number(c.assignedCents),
            activity: Number(c.activityCents),
            available: Number(c.availableCents),
            cashOver: Number(c.cashOverspendingCents),
            creditOver: Number(c.creditOverspendingCents),
            state: c.state,
          }
        }
      }
      throw new Error(`Category ${id} is not in the snapshot of ${snapshot.month}`)
    },
  }
}
