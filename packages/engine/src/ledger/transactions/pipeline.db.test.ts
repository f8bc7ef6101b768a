import { EngineError, type TransactionPipelineStep } from '@hearth/engine'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { createRegistry } from '../../mutator/registry.ts'
import { ledgerOperations } from '../operations.ts'
import { ledgerHousehold, newAccount, outboxEvents } from '../test-fixture.ts'

/** The ledger's operations with one extra pipeline step, as a feature domain would register it. */
function ledgerWith(step: TransactionPipelineStep) {
  return createRegistry(ledgerOperations({ transactionPipeline: [step] }))
}

describe('transaction pipeline', () => {
  it('shows each step the drafts of every create and the rows of every write, in the write’s transaction', async () => {
    const seen: string[] = []
    const ops = ledgerWith({
      name: 'test.memo',
      async drafted(_tx, drafts, _ctx, write) {
        seen.push(`drafted ${write} ${drafts.length}`)
        for (const draft of drafts) draft.row.memo = 'set by a step'
      },
      async written(tx, rows, ctx, write) {
        seen.push(`written ${write} ${rows.length}`)
        // The rows are already there for the step to read: it runs inside the write.
        const stored = await tx
          .selectFrom('transactions')
          .select('memo')
          .where('household_id', '=', ctx.householdId)
          .where(
            'id',
            'in',
            rows.map((r) => r.id),
          )
          .execute()
        expect(stored.map((s) => s.memo)).toEqual(rows.map((r) => r.memo))
      },
    })
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const created = await h.run(ops.transactions.create, {
      id: ulid(),
      accountId: account.id,
      date: '2024-03-10',
      amountCents: -1000,
      memo: 'typed by hand',
    })
    expect(created.memo).toBe('set by a step')
    const row = (n: number) => ({ id: ulid(), accountId: account.id, date: '2024-03-11', amountCents: -n })
    await h.run(ops.transactions.bulkCreate, { transactions: [row(1), row(2)] })
    const updated = await h.run(ops.transactions.update, { id: created.id, memo: 'edited' })
    expect(updated.memo).toBe('edited')
    expect(seen).toEqual([
      'drafted create 1',
      'written create 1',
      'drafted bulkCreate 2',
      'written bulkCreate 2',
      'written update 1',
    ])
  })

  it('rolls the whole write back when a step throws: rows, the payee it named, its events and its version', async () => {
    const ops = ledgerWith({
      name: 'test.refuse',
      async written(tx, _rows, ctx) {
        await tx
          .insertInto('tags')
          .values({
            household_id: ctx.householdId,
            id: ulid(),
            name: 'written by the step',
            color: null,
            created_at: ctx.now,
            updated_at: ctx.now,
          })
          .execute()
        throw new EngineError(409, 'REFUSED_BY_TEST', 'A step refused the write.')
      },
    })
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const before = await outboxEvents(h)
    const clock = () =>
      h.store.db
        .selectFrom('household_clock')
        .select('version')
        .where('household_id', '=', h.ctx.householdId)
        .executeTakeFirstOrThrow()
    const version = await clock()
    const id = ulid()
    await expect(
      h.run(ops.transactions.create, {
        id,
        accountId: account.id,
        date: '2024-03-10',
        amountCents: -1000,
        payeeName: 'A payee nobody has seen',
      }),
    ).rejects.toMatchObject({ code: 'REFUSED_BY_TEST' })
    const left = async (table: 'transactions' | 'payees' | 'tags') =>
      h.store.db.selectFrom(table).select('id').where('household_id', '=', h.ctx.householdId).execute()
    expect(await left('transactions')).toEqual([])
    expect(await left('payees')).toEqual([])
    expect(await left('tags')).toEqual([])
    expect(await outboxEvents(h)).toEqual(before)
    expect(await clock()).toEqual(version)
  })
})
