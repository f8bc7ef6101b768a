import {
  DEFAULT_ACTIVITY_RETENTION_DAYS,
  operations,
  runMutation,
  SCOPES,
  trimActivity,
} from '@hearth/engine'
import { materializeRecurrences, runCli } from '@hearth/server'
import { sql } from 'kysely'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { type TestMember, useTestServer } from '../src/index.ts'
import { chat, relativeDates } from './assistant-fixture.ts'
import { createCategory, createGroup, expectStatus, H } from './catalog-fixture.ts'

const server = useTestServer()

const activity = async (api: TestMember['api'], query = '') =>
  expectStatus(await api.get(`${H}/activity${query}`), 200).items as any[]

/** A rule that files a payee containing `text` under `categoryId`. */
async function rule(api: TestMember['api'], text: string, categoryId: string) {
  return expectStatus(
    await api.post(`${H}/rules`, {
      name: text,
      predicate: { combinator: 'all', conditions: [{ field: 'payee_name', op: 'contains', value: text }] },
      action: { setCategoryId: categoryId },
    }),
    201,
  )
}

describe('activity from every path', () => {
  it('records an import as one entry with the rows it created, a rule’s category among them', async () => {
    const { api } = await server.newOwner()
    const group = await createGroup(api, 'Living')
    const food = await createCategory(api, group.id, 'Food')
    await rule(api, 'Grocer', food.id)
    const account = expectStatus(await api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' }), 201)
    const body = {
      accountId: account.id,
      format: 'csv',
      content: 'Date,Amount,Payee\n2025-01-02,-12.50,Grocer\n2025-01-03,-3.00,Kiosk\n',
    }
    expectStatus(await api.post(`${H}/imports`, body), 201)

    const [entry] = await activity(api, '?operation=imports.commit')
    const rows = entry.changes.filter((c: any) => c.table === 'transactions')
    expect(rows).toHaveLength(2)
    expect(rows.every((c: any) => c.action === 'created')).toBe(true)
    const grocer = rows.find((c: any) =>
      c.fields.some((f: any) => f.field === 'amountCents' && f.after === '-1250'),
    )
    expect(grocer.fields).toContainEqual(expect.objectContaining({ field: 'categoryId', after: food.id }))
    expect(entry.actor.kind).toBe('key')
  })

  it('records a job as the job, with what it booked', async () => {
    const owner = await server.newOwner()
    const now = new Date('2026-01-10T12:00:00Z')
    const ctx = {
      userId: owner.userId,
      householdId: owner.householdId,
      role: 'owner' as const,
      scopes: SCOPES,
      now,
    }
    const accountId = ulid()
    await runMutation(
      server.store.db,
      operations.accounts.create,
      { id: accountId, name: 'Checking', type: 'cash' },
      ctx,
    )
    await runMutation(
      server.store.db,
      operations.recurrences.create,
      { id: ulid(), name: 'Gym', accountId, amountCents: -2500, frequency: 'daily', startDate: '2026-01-01' },
      ctx,
    )
    await materializeRecurrences(server.store, { actor: 'system', scopes: SCOPES, now })

    const [entry] = await activity(owner.api, '?operation=recurrences.materializeDue')
    expect(entry).toMatchObject({
      memberId: 'system',
      actor: { kind: 'job', label: 'the job recurrences.materialize' },
    })
    expect(entry.changes).toContainEqual(
      expect.objectContaining({ resource: 'transaction', action: 'created' }),
    )
  })

  it('records a change the assistant proposed as its operation, done by the assistant for the member who confirmed', async () => {
    const { api } = await server.newOwner()
    const AI = `${H}/ai`
    const d = relativeDates()
    expectStatus(await api.post(`${AI}/consent`), 200)
    const group = await createGroup(api, 'Living')
    const groceries = await createCategory(api, group.id, 'Groceries')
    await createCategory(api, group.id, 'Dining Out')
    const answer = await chat(server.url, api, 'move 50 from Dining Out to Groceries this month')
    const action = answer.events.find((e) => e.event === 'action.proposed')!.data.action
    expectStatus(await api.post(`${AI}/actions/${action.id}/confirm`), 200)

    const [entry] = await activity(api, `?categoryId=${groceries.id}&month=${d.thisMonth}`)
    expect(entry).toMatchObject({
      operation: 'budgets.move',
      actor: { kind: 'assistant', label: 'the assistant, confirmed by Owner' },
    })
    expect(entry.summary).toContain('$50.00')
    // Undone like any other change of the member's.
    expectStatus(await api.post(`${H}/activity/undo`, { entryId: entry.id }), 200)
    const cell = expectStatus(await api.get(`${H}/budgets/${d.thisMonth}/categories/${groceries.id}`), 200)
    expect(cell.assignedCents).toBe('0')
  })

  it('records the operator’s command line as the owner at the command line', async () => {
    const owner = await server.newOwner()
    const userId = ulid()
    await runMutation(
      server.store.db,
      operations.users.create,
      { id: userId, name: 'Ben' },
      {
        userId,
        scopes: SCOPES,
        now: new Date(),
      },
    )
    const io = { env: {}, stdout: () => {}, stderr: () => {}, store: server.store }
    expect(await runCli(['member', 'add', '--household', owner.householdId, '--user', userId], io)).toBe(0)
    const [entry] = await activity(owner.api, '?operation=members.add')
    expect(entry).toMatchObject({
      memberId: owner.userId,
      actor: { kind: 'cli', label: 'Owner at the command line' },
    })
    expect(entry.changes).toContainEqual(
      expect.objectContaining({ resource: 'membership', action: 'created' }),
    )
  })

  it('trims entries past their retention with their row images, and keeps the rest', async () => {
    const { api, householdId } = await server.newOwner()
    expectStatus(await api.post(`${H}/tags`, { name: 'Kept' }), 201)
    const count = async () =>
      Number(
        (
          await server.store.db
            .selectFrom('activity_changes')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('household_id', '=', householdId)
            .executeTakeFirstOrThrow()
        ).n,
      )
    expect(await count()).toBeGreaterThan(0)
    const trim = () =>
      trimActivity(server.store.db, { now: new Date(), days: DEFAULT_ACTIVITY_RETENTION_DAYS, batch: 500 })
    await trim()
    expect(await activity(api)).not.toEqual([])
    // This household's entries age past the retention; other tests' entries stay recent.
    await sql`update activity set occurred_at = occurred_at - make_interval(days => ${DEFAULT_ACTIVITY_RETENTION_DAYS + 1})
      where household_id = ${householdId}`.execute(server.store.db)
    let trimmed = 0
    for (let n = -1; n !== 0; ) {
      n = await trim()
      trimmed += n
    }
    expect(trimmed).toBeGreaterThan(0)
    expect(await activity(api)).toEqual([])
    expect(await count()).toBe(0)
  })
})
