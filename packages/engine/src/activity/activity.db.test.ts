import { operations } from '@hearth/engine'
import { sql } from 'kysely'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { ledgerHousehold, newAccount, newCategory, newTransaction } from '../ledger/test-fixture.ts'

describe('activity', () => {
  it('records an edit with who, the operation and each changed field before and after, in the household currency', async () => {
    const h = await ledgerHousehold({ baseCurrency: 'EUR' })
    const account = await newAccount(h)
    const row = await newTransaction(h, account.id, { amountCents: -1200, memo: 'bread' })
    await h.run(operations.transactions.update, { id: row.id, amountCents: -1550, memo: 'bread and milk' })

    const { items } = await h.read(operations.activity.list, { transactionId: row.id })
    expect(items.map((e) => e.operation)).toEqual(['transactions.update', 'transactions.create'])
    const [edit] = items
    expect(edit!.memberId).toBe(h.ctx.userId)
    expect(edit!.actor.label).toBe('Test Owner')
    const change = edit!.changes.find((c) => c.table === 'transactions')!
    expect(change).toMatchObject({ resource: 'transaction', id: row.id, action: 'updated' })
    expect(change.fields).toEqual(
      expect.arrayContaining([
        { field: 'amountCents', before: '-1200', after: '-1550', text: 'amountCents -€12.00 → -€15.50' },
        { field: 'memo', before: 'bread', after: 'bread and milk', text: 'memo "bread" → "bread and milk"' },
      ]),
    )
    expect(edit!.summary).toContain('updated transaction: ')
    expect(edit!.summary).toContain('amountCents -€12.00 → -€15.50')
  })

  it('names the account, payee and category a change points at, where the reader may read them', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h, { name: 'Joint checking' })
    const category = await newCategory(h, 'Groceries')
    const payeeId = ulid()
    await h.run(operations.payees.create, { id: payeeId, name: 'Bakery' })
    const row = await newTransaction(h, account.id, { payeeId, categoryId: category })
    const dining = await newCategory(h, 'Dining out')
    await h.run(operations.transactions.update, { id: row.id, categoryId: dining })

    const { items } = await h.read(operations.activity.list, { transactionId: row.id })
    const [edit, create] = items
    const fields = (entry: typeof edit) => entry!.changes.find((c) => c.table === 'transactions')!.fields
    expect(fields(edit)).toContainEqual({
      field: 'categoryId',
      before: category,
      after: dining,
      text: 'category "Groceries" → "Dining out"',
    })
    const texts = fields(create).map((f) => f.text)
    expect(texts).toContain('account "Joint checking"')
    expect(texts).toContain('payee "Bakery"')
    expect(create!.summary).toContain('category "Groceries"')

    // A reader who may read transactions but not payees sees the payee's id, never its name.
    const scopes = h.ctx.scopes.filter((s) => s !== 'read:payees' && s !== 'write:payees')
    const limited = await h.read(operations.activity.list, { transactionId: row.id }, { scopes })
    const payee = fields(limited.items.at(-1)).find((f) => f.field === 'payeeId')!
    expect(payee.text).toBe(`payee "${payeeId}"`)
  })

  it('keeps no row image of what triggers derive (the monthly budget sums)', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const category = await newCategory(h)
    const row = await newTransaction(h, account.id, { categoryId: category })
    const tables = await h.store.db
      .selectFrom('activity_changes')
      .select('table_name')
      .where('household_id', '=', h.ctx.householdId)
      .where('transaction_id', '=', row.id)
      .execute()
    expect(tables.map((t) => t.table_name)).toEqual(['transactions'])
    const derived = await h.store.db
      .selectFrom('activity_changes')
      .select('row_id')
      .where('household_id', '=', h.ctx.householdId)
      .where('table_name', '=', 'budget_activity')
      .execute()
    expect(derived).toEqual([])
  })

  it('undoes an edit from its before-image, then redoes it by undoing the undo', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const row = await newTransaction(h, account.id, { amountCents: -1200 })
    await h.run(operations.transactions.update, { id: row.id, amountCents: -9900 })
    const undo = await h.run(operations.activity.undo, {})
    expect(undo.undoneOperation).toBe('transactions.update')
    const amount = async () =>
      (
        await h.store.db
          .selectFrom('transactions')
          .select('amount_cents')
          .where('household_id', '=', h.ctx.householdId)
          .where('id', '=', row.id)
          .executeTakeFirstOrThrow()
      ).amount_cents
    expect(Number(await amount())).toBe(-1200)
    await h.run(operations.activity.undo, { entryId: undo.entryId })
    expect(Number(await amount())).toBe(-9900)
    const balance = await sql<{ balance: string }>`select sum(amount_cents)::text as balance from transactions
      where household_id = ${h.ctx.householdId} and deleted_at is null`.execute(h.store.db)
    expect(balance.rows[0]!.balance).toBe('-9900')
  })

  it('refuses to undo a change a later one touched, naming the later change', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const row = await newTransaction(h, account.id)
    await h.run(operations.transactions.update, { id: row.id, memo: 'first' })
    const { items } = await h.read(operations.activity.list, { transactionId: row.id, limit: 1 })
    await h.run(operations.transactions.update, { id: row.id, memo: 'second' })
    const error = await h.run(operations.activity.undo, { entryId: items[0]!.id }).catch((e) => e)
    expect(error).toMatchObject({ status: 409, code: 'UNDO_CONFLICT' })
    expect(error.extra.laterOperation).toBe('transactions.update')
  })

  it('pages newest first with a cursor that never repeats an entry', async () => {
    const h = await ledgerHousehold()
    for (let i = 0; i < 5; i++) await h.run(operations.tags.create, { id: ulid(), name: `tag ${i}` })
    const first = await h.read(operations.activity.list, { operation: 'tags.create', limit: 3 })
    const second = await h.read(operations.activity.list, {
      operation: 'tags.create',
      limit: 3,
      cursor: first.nextCursor,
    })
    expect(first.items).toHaveLength(3)
    expect(second.items).toHaveLength(2)
    expect(second.nextCursor).toBeNull()
    const versions = [...first.items, ...second.items].map((e) => e.version)
    expect(versions).toEqual([...versions].sort((a, b) => b - a))
    expect(new Set(versions).size).toBe(5)
  })
})
