import { EngineError, operations } from '@hearth/engine'
import { sql } from 'kysely'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import {
  expectBalancesExact,
  type LedgerHousehold,
  ledgerHousehold,
  newAccount,
  newCategory,
  newFlag,
  newPayee,
  newTag,
  newTransaction,
  outboxEvents,
} from '../ledger/test-fixture.ts'

const rules = operations.rules
const contains = (value: string) => ({
  combinator: 'all',
  conditions: [{ field: 'payee_name', op: 'contains', value }],
})

function newRule(h: LedgerHousehold, args: Record<string, unknown>) {
  return h.run(rules.create, { id: ulid(), name: 'Rule', ...args })
}

async function refusal(promise: Promise<unknown>): Promise<EngineError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(EngineError)
  return error as EngineError
}

describe('rules CRUD', () => {
  it('creates a rule and lists live rules by priority, then creation', async () => {
    const h = await ledgerHousehold()
    const groceries = await newCategory(h)
    const first = await newRule(h, {
      name: 'Late',
      predicate: contains('rewe'),
      action: { setCategoryId: groceries },
      priority: 5,
    })
    expect(first).toMatchObject({
      name: 'Late',
      enabled: true,
      priority: 5,
      action: { setCategoryId: groceries },
    })
    const a = await newRule(h, { name: 'A', predicate: contains('a'), action: { stopProcessing: true } })
    const b = await h.run(
      rules.create,
      { id: ulid(), name: 'B', predicate: contains('b'), action: { appendMemo: '!' } },
      { now: new Date(Date.now() + 1000) },
    )
    expect((await h.read(rules.list, {})).items.map((r) => r.name)).toEqual(['A', 'B', 'Late'])
    await h.run(rules.update, { id: first.id, priority: 0, enabled: false, name: 'Early' })
    expect((await h.read(rules.list, {})).items.map((r) => r.name)).toEqual(['Early', 'A', 'B'])
    expect(await h.read(rules.get, { id: a.id })).toEqual(a)
    await h.run(rules.delete, { id: b.id })
    expect((await h.read(rules.list, {})).items.map((r) => r.name)).toEqual(['Early', 'A'])
    expect((await refusal(h.read(rules.get, { id: b.id }))).status).toBe(404)
    expect((await refusal(h.run(rules.update, { id: b.id, enabled: true }))).status).toBe(404)
    const events = (await outboxEvents(h)).filter((e) => e.type.startsWith('rule.'))
    expect(events.map((e) => e.type)).toEqual([
      'rule.created',
      'rule.created',
      'rule.created',
      'rule.updated',
      'rule.deleted',
    ])
    expect(events[3]!.data).toMatchObject({ changes: ['name', 'enabled', 'priority'] })
  })

  it('refuses an action naming a category, payee, tag or flag the household does not have, by path', async () => {
    const h = await ledgerHousehold()
    const e = await refusal(newRule(h, { predicate: contains('x'), action: { addTagIds: [ulid()] } }))
    expect(e).toMatchObject({ status: 404, code: 'NOT_FOUND', extra: { path: 'action.addTagIds.0' } })
    const c = await refusal(newRule(h, { predicate: contains('x'), action: { setCategoryId: ulid() } }))
    expect(c.extra).toMatchObject({ path: 'action.setCategoryId' })
    const id = ulid()
    await newRule(h, { id, predicate: contains('x'), action: { appendMemo: 'y' } })
    expect(
      (await refusal(newRule(h, { id, predicate: contains('x'), action: { appendMemo: 'y' } }))).code,
    ).toBe('ID_ALREADY_EXISTS')
  })

  it('refuses a malformed predicate with 400 naming the path', async () => {
    const h = await ledgerHousehold()
    const e = await refusal(
      newRule(h, {
        predicate: { combinator: 'all', conditions: [{ field: 'amount', op: 'contains', value: 1 }] },
        action: { appendMemo: 'x' },
      }),
    )
    expect(e).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' })
    expect(e.errors?.[0]?.path).toBe('predicate.conditions.0.op')
    const regex = await refusal(
      newRule(h, {
        predicate: { combinator: 'all', conditions: [{ field: 'memo', op: 'matches', value: '(x)\\1' }] },
        action: { appendMemo: 'x' },
      }),
    )
    expect(regex.errors?.[0]?.path).toBe('predicate.conditions.0.value')
  })
})

describe('rules on new rows', () => {
  it('classify a created row, record the application, and leave what the request set', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const groceries = await newCategory(h)
    const dining = await newCategory(h, 'Dining')
    const tag = await newTag(h, 'food')
    const rule = await newRule(h, {
      predicate: contains('rewe'),
      action: { setCategoryId: groceries, addTagIds: [tag], appendMemo: ' (auto)' },
    })
    const row = await newTransaction(h, account.id, { payeeName: 'REWE Markt', memo: 'milk' })
    expect(row).toMatchObject({ categoryId: groceries, tagIds: [tag], memo: 'milk (auto)' })
    const applications = await h.read(rules.applications, { transactionId: row.id })
    expect(applications.items).toEqual([
      expect.objectContaining({
        ruleId: rule.id,
        transactionId: row.id,
        trigger: 'auto',
        changes: {
          categoryId: { from: null, to: groceries },
          memo: { from: 'milk', to: 'milk (auto)' },
          addedTagIds: [tag],
        },
      }),
    ])
    const chosen = await newTransaction(h, account.id, { payeeName: 'REWE', categoryId: dining })
    expect(chosen.categoryId).toBe(dining)
    expect(
      (await h.read(rules.applications, { transactionId: chosen.id })).items[0]?.changes,
    ).not.toHaveProperty('categoryId')
  })

  it('classify a bulk import before import matching, and skip disabled and deleted rules', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const groceries = await newCategory(h)
    const fuel = await newCategory(h, 'Fuel')
    await newRule(h, { predicate: contains('rewe'), action: { setCategoryId: groceries } })
    const off = await newRule(h, {
      predicate: contains('shell'),
      action: { setCategoryId: fuel },
      enabled: false,
    })
    const gone = await newRule(h, { predicate: contains('aral'), action: { setCategoryId: fuel } })
    await h.run(rules.delete, { id: gone.id })
    const twin = await newTransaction(h, account.id, {
      date: '2024-03-10',
      amountCents: -500,
      memo: 'by hand',
    })
    const result = await h.run(operations.transactions.bulkCreate, {
      transactions: [
        {
          id: ulid(),
          accountId: account.id,
          date: '2024-03-11',
          amountCents: -100,
          payeeName: 'REWE',
          importedId: 'b1',
        },
        {
          id: ulid(),
          accountId: account.id,
          date: '2024-03-11',
          amountCents: -200,
          payeeName: 'Shell',
          importedId: 'b2',
        },
        {
          id: ulid(),
          accountId: account.id,
          date: '2024-03-11',
          amountCents: -300,
          payeeName: 'Aral',
          importedId: 'b3',
        },
        {
          id: ulid(),
          accountId: account.id,
          date: '2024-03-10',
          amountCents: -500,
          payeeName: 'REWE',
          importedId: 'b4',
        },
      ],
    })
    expect(result.items.map((t) => t.categoryId)).toEqual([groceries, null, null])
    expect(off.enabled).toBe(false)
    // The bank row met its hand-entered twin, which keeps its own (empty) category.
    expect(result.matched).toEqual([expect.objectContaining({ matchedTransactionId: twin.id })])
    expect((await h.read(operations.transactions.get, { id: twin.id })).categoryId).toBeNull()
    await expectBalancesExact(h)
  })

  it('rename the payee of an imported row, but never a payee chosen on a hand-entered row', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const amazon = await newPayee(h, 'Amazon')
    const groceries = await newCategory(h)
    await newRule(h, {
      predicate: {
        combinator: 'all',
        conditions: [{ field: 'imported_payee', op: 'contains', value: 'amzn' }],
      },
      action: { setPayeeId: amazon },
      priority: 1,
    })
    await newRule(h, {
      predicate: { combinator: 'all', conditions: [{ field: 'payee_id', op: 'is', value: amazon }] },
      action: { setCategoryId: groceries },
      priority: 2,
    })
    const imported = await h.run(operations.transactions.bulkCreate, {
      transactions: [
        {
          id: ulid(),
          accountId: account.id,
          date: '2024-03-11',
          amountCents: -100,
          payeeName: 'AMZN Mktp DE',
          importedId: 'a1',
        },
      ],
    })
    expect(imported.items[0]).toMatchObject({ payeeId: amazon, categoryId: groceries })
    const typed = await newTransaction(h, account.id, { payeeName: 'AMZN Mktp DE', source: 'manual' })
    expect(typed.payeeId).not.toBe(amazon)
    expect(typed.categoryId).toBeNull()
  })
})

describe('back-fill records', () => {
  it('one record per rule and change, at most 5,000 rows each, listed one item per row', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const groceries = await newCategory(h)
    const dining = await newCategory(h, 'Dining')
    const payee = await newPayee(h, 'REWE')
    // 5,001 uncategorized rows and 3 in Dining, all REWE, written straight to the table.
    await sql`
      insert into transactions (household_id, id, account_id, date, amount_cents, payee_id, category_id,
                                status, source, kind, created_at, updated_at)
      select ${h.ctx.householdId}, 'B' || lpad(n::text, 25, '0'), ${account.id}, date '2025-01-01' + (n % 300),
             -100 - n, ${payee}, case when n > 5001 then ${dining} end, 'cleared', 'manual', 'normal', now(), now()
      from generate_series(1, 5004) as n`.execute(h.store.db)
    const rule = await newRule(h, {
      predicate: { combinator: 'all', conditions: [{ field: 'payee_id', op: 'is', value: payee }] },
      action: { setCategoryId: groceries },
    })
    const now = new Date('2026-11-24T10:00:00.000Z')
    const result = await h.run(rules.apply, { id: rule.id }, { now })
    expect(result).toMatchObject({ changedCount: 5004, applicationCount: 5004, truncated: true })
    const records = await h.store.db
      .selectFrom('rule_runs')
      .select(['id', 'changes', sql<number>`cardinality(transaction_ids)`.as('rows')])
      .where('household_id', '=', h.ctx.householdId)
      .orderBy('id')
      .execute()
    const at = now.getTime()
    expect(records).toEqual([
      { id: `${rule.id}:${at}:0`, changes: { categoryId: { from: null, to: groceries } }, rows: 5000 },
      { id: `${rule.id}:${at}:1`, changes: { categoryId: { from: null, to: groceries } }, rows: 1 },
      { id: `${rule.id}:${at}:2`, changes: { categoryId: { from: dining, to: groceries } }, rows: 3 },
    ])
    const last = `B${'5004'.padStart(25, '0')}`
    expect((await h.read(rules.applications, { transactionId: last })).items).toEqual([
      {
        id: `${last}:${rule.id}:${at}`,
        ruleId: rule.id,
        transactionId: last,
        trigger: 'manual',
        changes: { categoryId: { from: dining, to: groceries } },
        appliedAt: now.toISOString(),
      },
    ])
    const byRule = await h.read(rules.applications, { ruleId: rule.id })
    expect(byRule.items).toHaveLength(500)
    // Newest first, then by id descending: the last rows come first.
    expect(byRule.items[0]!.transactionId).toBe(last)
  })
})

describe('apply, preview and apply-all', () => {
  async function household() {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const groceries = await newCategory(h)
    const dining = await newCategory(h, 'Dining')
    const rows = []
    for (const [payeeName, amountCents] of [
      ['REWE', -1000],
      ['Rewe City', -2000],
      ['Pizza Place', -3000],
      ['REWE', 5000],
    ] as const)
      rows.push(await newTransaction(h, account.id, { payeeName, amountCents, status: 'cleared' }))
    return { h, account, groceries, dining, rows }
  }

  it('preview answers exactly what apply then does, and changes nothing itself', async () => {
    const { h, groceries, rows } = await household()
    const flag = await newFlag(h, 'Check')
    const rule = await newRule(h, {
      predicate: {
        combinator: 'all',
        conditions: [
          { field: 'payee_name', op: 'contains', value: 'rewe' },
          { field: 'outflow', op: 'gt', value: 0 },
        ],
      },
      action: { setCategoryId: groceries, addFlagIds: [flag] },
      enabled: false,
    })
    const preview = await h.read(rules.preview, { id: rule.id })
    expect(preview).toMatchObject({
      examinedCount: 4,
      changedCount: 2,
      applicationCount: 2,
      truncated: false,
    })
    expect(preview.items.map((i) => i.transactionId)).toEqual([rows[0]!.id, rows[1]!.id].sort())
    expect((await h.read(operations.transactions.get, { id: rows[0]!.id })).categoryId).toBeNull()
    const applied = await h.run(rules.apply, { id: rule.id })
    expect(applied).toEqual(preview)
    const after = await h.read(operations.transactions.get, { id: rows[1]!.id })
    expect(after).toMatchObject({ categoryId: groceries, flagIds: [flag] })
    const records = await h.read(rules.applications, { ruleId: rule.id })
    expect(records.items.map((r) => r.trigger)).toEqual(['manual', 'manual'])
    // Applying again finds nothing left to change.
    expect(await h.read(rules.preview, { id: rule.id })).toMatchObject({ changedCount: 0, items: [] })
    const appliedEvents = (await outboxEvents(h)).filter((e) => e.type === 'rule.applied')
    expect(appliedEvents.map((e) => e.data)).toEqual([
      {
        ruleId: rule.id,
        changedCount: 2,
        transactionIds: [rows[0]!.id, rows[1]!.id].sort(),
        truncated: false,
      },
    ])
    await expectBalancesExact(h)
  })

  it('applying a rule twice changes nothing the second time, for every action', async () => {
    const { h, groceries, rows } = await household()
    const flag = await newFlag(h, 'Check')
    const tag = await newTag(h, 'Food')
    const payee = await newPayee(h, 'Rewe Markt')
    const rule = await newRule(h, {
      predicate: contains('rewe'),
      action: {
        setCategoryId: groceries,
        setPayeeId: payee,
        appendMemo: ' #food',
        prependMemo: '[shop] ',
        addTagIds: [tag],
        addFlagIds: [flag],
      },
      enabled: false,
    })
    const first = await h.run(rules.apply, { id: rule.id })
    expect(first.changedCount).toBe(3)
    const once = await h.read(operations.transactions.get, { id: rows[0]!.id })
    expect(once).toMatchObject({ memo: '[shop]  #food', categoryId: groceries, payeeId: payee })
    const second = await h.run(rules.apply, { id: rule.id })
    expect(second).toMatchObject({ changedCount: 0, items: [] })
    expect(await h.read(operations.transactions.get, { id: rows[0]!.id })).toEqual(once)
    expect(await h.run(rules.applyAll, {})).toMatchObject({ changedCount: 0 })
  })

  it('apply-all runs enabled rules by priority, first match wins per field, and never touches reconciled rows', async () => {
    const { h, account, groceries, dining, rows } = await household()
    const late = await newRule(h, {
      predicate: contains('rewe'),
      action: { setCategoryId: dining },
      priority: 9,
    })
    const early = await newRule(h, {
      predicate: contains('rewe'),
      action: { setCategoryId: groceries },
      priority: 1,
    })
    await newRule(h, { predicate: contains('pizza'), action: { setCategoryId: dining }, enabled: false })
    // Lock the first row: cleared rows dated up to today become reconciled.
    const balance = (await h.read(operations.accounts.get, { id: account.id })).clearedBalanceCents
    await h.run(operations.accounts.reconcile, {
      id: account.id,
      statementBalanceCents: balance,
      statementDate: '2024-03-10',
      adjustmentId: ulid(),
    })
    const locked = rows[0]!
    expect((await h.read(operations.transactions.get, { id: locked.id })).status).toBe('reconciled')
    const result = await h.run(rules.applyAll, {})
    expect(result.examinedCount).toBe(0)
    // Every row was reconciled: nothing to do. Unlock two rows and run again.
    for (const r of rows.slice(1))
      await h.run(operations.transactions.update, { id: r.id, status: 'cleared' })
    const second = await h.run(rules.applyAll, {})
    expect(second).toMatchObject({ examinedCount: 3, changedCount: 2 })
    expect(second.items.flatMap((i) => i.applications.map((a) => a.ruleId))).toEqual([early.id, early.id])
    expect((await h.read(operations.transactions.get, { id: rows[1]!.id })).categoryId).toBe(groceries)
    expect((await h.read(operations.transactions.get, { id: rows[2]!.id })).categoryId).toBeNull()
    expect((await h.read(operations.transactions.get, { id: locked.id })).categoryId).toBeNull()
    expect(late.enabled).toBe(true)
  })

  it('apply replaces a category set earlier by hand; a split row keeps its parts', async () => {
    const { h, account, groceries, dining } = await household()
    const payee = await newPayee(h, 'Corner Shop')
    const manual = await newTransaction(h, account.id, { payeeId: payee, categoryId: dining })
    const split = await newTransaction(h, account.id, {
      payeeId: payee,
      amountCents: -1000,
      splits: [
        { amountCents: -400, categoryId: dining },
        { amountCents: -600, categoryId: dining },
      ],
    })
    const rule = await newRule(h, {
      predicate: { combinator: 'all', conditions: [{ field: 'payee_id', op: 'is', value: payee }] },
      action: { setCategoryId: groceries },
      enabled: false,
    })
    const result = await h.run(rules.apply, { id: rule.id })
    expect(result.items.map((i) => i.transactionId)).toEqual([manual.id])
    expect((await h.read(operations.transactions.get, { id: manual.id })).categoryId).toBe(groceries)
    const parts = await h.read(operations.transactions.get, { id: split.id })
    expect(parts.categoryId).toBeNull()
    expect(parts.splits.map((s) => s.categoryId)).toEqual([dining, dining])
  })
})
