import { operations } from '@hearth/engine'
import { sql } from 'kysely'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import {
  type LedgerHousehold,
  ledgerHousehold,
  newAccount,
  newCategory,
  newPayee,
  newTransaction,
} from '../ledger/test-fixture.ts'
import type { CategoryModel, CategorySubject } from './category-model.ts'
import { householdCategoryModel, trainCategoryModel } from './suggestion-step.ts'

/**
 * The kept category model (migration 0048, `householdCategoryModel`) against one trained afresh:
 * after every change to what the model learns from they must guess alike, and a row added
 * without a category must not cost a training.
 */

/** A household with Bakery rows in Food, Cinema rows in Fun and Grocer rows in Food, 4 of each. */
async function household() {
  const h = await ledgerHousehold()
  const account = (await newAccount(h)).id
  const other = (await newAccount(h, { name: 'Savings' })).id
  const food = await newCategory(h, 'Food')
  const fun = await newCategory(h, 'Fun')
  const bakery = await newPayee(h, 'Bakery')
  const cinema = await newPayee(h, 'Cinema')
  const grocer = await newPayee(h, 'Grocer')
  const history = []
  for (let i = 0; i < 4; i++) {
    const common = { accountId: account, date: `2024-03-1${i}` }
    history.push({
      ...common,
      id: ulid(),
      payeeId: bakery,
      categoryId: food,
      memo: 'bread',
      amountCents: -450,
    })
    history.push({
      ...common,
      id: ulid(),
      payeeId: cinema,
      categoryId: fun,
      memo: 'movie',
      amountCents: -1800,
    })
    history.push({
      ...common,
      id: ulid(),
      payeeId: grocer,
      categoryId: food,
      memo: 'fruit',
      amountCents: -2500,
    })
  }
  const { items } = await h.run(operations.transactions.bulkCreate, { transactions: history })
  return { h, account, other, food, fun, bakery, cinema, grocer, rows: items.map((t) => t.id) }
}

type Household = Awaited<ReturnType<typeof household>>

/** Rows to ask both models about: every payee by id and by name, each memo, amount and account. */
function probes(x: Household): CategorySubject[] {
  const out: CategorySubject[] = []
  const payees: [string | null, string | null][] = [
    [x.bakery, 'bakery'],
    [x.cinema, 'cinema'],
    [x.grocer, 'grocer'],
    [null, 'patisserie'],
    [null, null],
  ]
  for (const [payeeId, payeeName] of payees)
    for (const memo of ['bread', 'movie', 'fruit', null])
      for (const amountCents of [-450, -1800, -2500, 100])
        for (const accountId of [x.account, x.other])
          out.push({ payeeId, payeeName, memo, amountCents, accountId })
  return out
}

const answers = (model: CategoryModel, subjects: CategorySubject[]) => ({
  size: model.size,
  guesses: subjects.map((s) => model.guess(s)),
})

/** The kept model, then a fresh one, read in one transaction: they must answer alike. */
async function expectKeptIsFresh(x: Household): Promise<CategoryModel> {
  const subjects = probes(x)
  return x.h.store.db.transaction().execute(async (tx) => {
    const kept = await householdCategoryModel(tx, x.h.ctx.householdId)
    const fresh = await trainCategoryModel(tx, x.h.ctx.householdId)
    expect(answers(kept, subjects)).toEqual(answers(fresh, subjects))
    return kept
  })
}

const kept = (h: LedgerHousehold) =>
  h.store.db.transaction().execute((tx) => householdCategoryModel(tx, h.ctx.householdId))

describe('the kept category model', () => {
  it('is trained once for rows added without a category, and answers as a fresh one', async () => {
    const x = await household()
    const first = await expectKeptIsFresh(x)
    expect(first.size).toBe(12)
    // Rows without a category (one with a new payee's name) teach nothing: the same model answers.
    const row = await newTransaction(x.h, x.account, { payeeId: x.bakery, amountCents: -450 })
    expect(row.suggestedCategoryId).toBe(x.food)
    await newTransaction(x.h, x.account, { payeeName: 'Corner shop', amountCents: -300 })
    expect(await kept(x.h)).toBe(first)
    // Neither does a change the training does not read (a row's status).
    await x.h.run(operations.transactions.update, { id: x.rows[0], status: 'cleared' })
    expect(await kept(x.h)).toBe(first)
    // Nor the new payee and its uncategorized row removed outright, as a device's rebase undoes
    // its pending create before the server's rows put them back.
    const db = x.h.store.db
    const corner = await db
      .selectFrom('payees')
      .select('id')
      .where('household_id', '=', x.h.ctx.householdId)
      .where('normalized_name', '=', 'corner shop')
      .executeTakeFirstOrThrow()
    await db.transaction().execute(async (tx) => {
      await tx.deleteFrom('transactions').where('payee_id', '=', corner.id).execute()
      await tx.deleteFrom('payees').where('id', '=', corner.id).execute()
    })
    expect(await kept(x.h)).toBe(first)
  })

  it('learns again after each change to what it learns from', async () => {
    const x = await household()
    let before = await expectKeptIsFresh(x)
    const changes: [string, () => Promise<unknown>][] = [
      [
        'a categorized row added',
        () => newTransaction(x.h, x.other, { payeeId: x.cinema, categoryId: x.fun }),
      ],
      [
        'a suggestion accepted',
        async () => {
          const row = await newTransaction(x.h, x.account, { payeeId: x.bakery, amountCents: -450 })
          return x.h.run(operations.transactions.acceptSuggestion, { id: row.id })
        },
      ],
      [
        'a row recategorized',
        () => x.h.run(operations.transactions.update, { id: x.rows[0], categoryId: x.fun }),
      ],
      [
        'a row’s memo edited',
        () => x.h.run(operations.transactions.update, { id: x.rows[1], memo: 'popcorn' }),
      ],
      [
        'a row’s amount edited',
        () => x.h.run(operations.transactions.update, { id: x.rows[2], amountCents: 100 }),
      ],
      [
        'a row moved to another account',
        () => x.h.run(operations.transactions.update, { id: x.rows[3], accountId: x.other }),
      ],
      [
        'a row’s payee changed',
        () => x.h.run(operations.transactions.update, { id: x.rows[4], payeeId: x.bakery }),
      ],
      ['a row deleted', () => x.h.run(operations.transactions.delete, { id: x.rows[5] })],
      ['a payee renamed', () => x.h.run(operations.payees.update, { id: x.grocer, name: 'Patisserie' })],
      [
        'a payee merged into another',
        () => x.h.run(operations.payees.merge, { id: x.cinema, targetPayeeId: x.bakery, mergeId: ulid() }),
      ],
      ['a category deleted', () => x.h.run(operations.categories.delete, { id: x.fun })],
    ]
    for (const [what, change] of changes) {
      await change()
      const after = await expectKeptIsFresh(x)
      expect(after, what).not.toBe(before)
      before = after
    }
  })

  it('learns again when a category comes back, or rows change below the engine', async () => {
    const x = await household()
    await x.h.run(operations.categories.delete, { id: x.fun })
    let before = await expectKeptIsFresh(x)
    const db = x.h.store.db
    const changes: [string, () => Promise<unknown>][] = [
      [
        'a deleted category restored',
        () => db.updateTable('categories').set({ deleted_at: null }).where('id', '=', x.fun).execute(),
      ],
      [
        'a row dated later',
        () =>
          db.updateTable('transactions').set({ date: '2025-01-01' }).where('id', '=', x.rows[6]!).execute(),
      ],
      [
        'a row merged into another',
        () =>
          db
            .updateTable('transactions')
            .set({ merged_into_id: x.rows[8]! })
            .where('id', '=', x.rows[7]!)
            .execute(),
      ],
      [
        'a row removed outright',
        () =>
          db
            .deleteFrom('transactions')
            .where('household_id', '=', x.h.ctx.householdId)
            .where('id', '=', x.rows[9]!)
            .execute(),
      ],
    ]
    for (const [what, change] of changes) {
      await change()
      const after = await expectKeptIsFresh(x)
      expect(after, what).not.toBe(before)
      before = after
    }
  })

  it('keeps nothing a rolled-back transaction trained on', async () => {
    const x = await household()
    const committed = await expectKeptIsFresh(x)
    // A write that recategorizes rows, trains on them, then fails: nothing of it may stay.
    await expect(
      x.h.store.db.transaction().execute(async (tx) => {
        await tx.updateTable('transactions').set({ category_id: x.fun }).where('id', 'in', x.rows).execute()
        const inside = await householdCategoryModel(tx, x.h.ctx.householdId)
        expect(inside).not.toBe(committed)
        expect(answers(inside, probes(x))).toEqual(
          answers(await trainCategoryModel(tx, x.h.ctx.householdId), probes(x)),
        )
        throw new Error('the write fails after training')
      }),
    ).rejects.toThrow('the write fails after training')
    expect(await expectKeptIsFresh(x)).toBe(committed)
    // The same through a savepoint rolled back (as a device's refused replay is), then a commit.
    await x.h.store.db.transaction().execute(async (tx) => {
      await sql`savepoint probe`.execute(tx)
      await tx.updateTable('transactions').set({ memo: 'changed' }).where('id', 'in', x.rows).execute()
      await householdCategoryModel(tx, x.h.ctx.householdId)
      await sql`rollback to savepoint probe`.execute(tx)
      await tx.updateTable('transactions').set({ status: 'cleared' }).where('id', '=', x.rows[0]!).execute()
    })
    expect(await expectKeptIsFresh(x)).toBe(committed)
    // And a change that commits after the model was read in its own transaction.
    await x.h.store.db.transaction().execute(async (tx) => {
      await householdCategoryModel(tx, x.h.ctx.householdId)
      await tx.updateTable('transactions').set({ memo: 'changed' }).where('id', '=', x.rows[0]!).execute()
      await householdCategoryModel(tx, x.h.ctx.householdId)
    })
    expect(await expectKeptIsFresh(x)).not.toBe(committed)
  })

  it('is per household', async () => {
    const x = await household()
    const y = await household()
    const mx = await expectKeptIsFresh(x)
    const my = await expectKeptIsFresh(y)
    expect(my).not.toBe(mx)
    // A change in one household's rows leaves the other's model as it was.
    await x.h.run(operations.transactions.update, { id: x.rows[0], categoryId: x.fun })
    expect(await expectKeptIsFresh(y)).toBe(my)
    const mx2 = await expectKeptIsFresh(x)
    expect(mx2).not.toBe(mx)
    // One transaction that changes both households' rows: both learn again.
    await x.h.store.db
      .updateTable('transactions')
      .set({ memo: 'both' })
      .where('id', 'in', [x.rows[1]!, y.rows[1]!])
      .execute()
    expect(await expectKeptIsFresh(x)).not.toBe(mx2)
    expect(await expectKeptIsFresh(y)).not.toBe(my)
  })
})
