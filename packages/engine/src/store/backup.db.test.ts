import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { newUlid, openPGliteStore, operations, runMutation, SCOPES, type Store } from '@hearth/engine'
import { BackupError, restoreBackup, writeBackup } from '@hearth/engine/node'
import { newHousehold, openIsolatedStore, tempDataDir } from '@hearth/test/store'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const dirs: string[] = []
// A store of this file's own: the worker's shared store holds whatever the files before this one
// wrote (on PostgreSQL, the whole run's rows), so backing it up took longer the later it ran.
let own: Awaited<ReturnType<typeof openIsolatedStore>>
let store: Store
beforeAll(async () => {
  own = await openIsolatedStore()
  store = own.store
})
afterAll(async () => {
  await own?.drop()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** A backup file's table lines (its header aside), which hold every row as PostgreSQL's text. */
const body = (path: string) => readFileSync(path, 'utf8').trim().split('\n').slice(1)

describe('backup and restore', () => {
  it('restores every table of a store into a new embedded store, value for value', async () => {
    const id = newUlid()
    await runMutation(
      store.db,
      operations.users.create,
      { id, name: 'Backed up' },
      { userId: id, scopes: [...SCOPES], now: new Date() },
    )
    // A row to spend, so the restored store has daily sums to rebuild.
    const ctx = await newHousehold(store)
    const accountId = newUlid()
    await runMutation(
      store.db,
      operations.accounts.create,
      { id: accountId, name: 'Cash', type: 'cash' },
      ctx,
    )
    await runMutation(
      store.db,
      operations.transactions.create,
      { id: newUlid(), accountId, date: '2025-05-05', amountCents: -4_200 },
      ctx,
    )
    // A shared note with an update: note_updates numbers its rows with an identity column
    // (`generated always`), which a plain insert of the backup's numbers is refused.
    await sql`insert into notes (household_id, target_kind, target_id) values (${ctx.householdId}, 'account', ${accountId})`.execute(
      store.db,
    )
    const appended = await sql<{ seq: string }>`
      insert into note_updates (household_id, target_kind, target_id, data)
      values (${ctx.householdId}, 'account', ${accountId}, ${Buffer.from([1, 2, 3])}) returning seq::text`.execute(
      store.db,
    )
    const files = tempDataDir(dirs)
    const header = await writeBackup(store, join(files, 'source.jsonl'))
    expect(header.tables.map((t) => t.name)).toContain('tags')
    expect(header.tables.map((t) => t.name)).toContain('note_updates')
    // A new embedded store: a copy of the run's migrated template, every migration and no rows.
    const target = await openPGliteStore({ dataDir: tempDataDir(dirs) })
    try {
      await restoreBackup(target, join(files, 'source.jsonl'))
      await writeBackup(target, join(files, 'copy.jsonl'))
      const sorted = (lines: string[]) => [...lines].sort()
      expect(sorted(body(join(files, 'copy.jsonl')))).toEqual(sorted(body(join(files, 'source.jsonl'))))
      // The daily spending sums are not in the file: the restore's triggers rebuild them from its rows.
      expect(header.tables.map((t) => t.name)).not.toContain('forecast_days')
      const kept = await sql<{ key: string; cents: string }>`
        select household_id || date::text || account_id || category_id || recurring::text as key,
          spent_cents::text as cents
        from forecast_days where spent_cents <> 0 order by 1`.execute(target.db)
      const ledger = await sql<{ key: string; cents: string }>`
        select t.household_id || t.date::text || t.account_id || coalesce(s.category_id, t.category_id, '')
            || (t.source = 'recurring')::text as key,
          sum(-coalesce(s.amount_cents, t.amount_cents))::text as cents
        from transactions t
        left join transaction_splits s on s.household_id = t.household_id and s.transaction_id = t.id
        where t.deleted_at is null and t.merged_into_id is null and t.kind = 'normal' and t.transfer_group_id is null
        group by 1 having sum(-coalesce(s.amount_cents, t.amount_cents)) <> 0 order by 1`.execute(target.db)
      expect(kept.rows.length).toBeGreaterThan(0)
      expect(kept.rows).toEqual(ledger.rows)
      // The note's next update is numbered past the restored ones.
      const next = await sql<{ seq: string }>`
        insert into note_updates (household_id, target_kind, target_id, data)
        values (${ctx.householdId}, 'account', ${accountId}, ${Buffer.from([4])}) returning seq::text`.execute(
        target.db,
      )
      expect(BigInt(next.rows[0]!.seq)).toBeGreaterThan(BigInt(appended.rows[0]!.seq))
      // Restoring twice is refused: the store holds data now.
      await expect(restoreBackup(target, join(files, 'source.jsonl'))).rejects.toThrow(BackupError)
    } finally {
      await target.close()
    }
  }, 120_000)

  it('refuses a file that is cut short', async () => {
    const files = tempDataDir(dirs)
    await writeBackup(store, join(files, 'whole.jsonl'))
    const lines = readFileSync(join(files, 'whole.jsonl'), 'utf8').trim().split('\n')
    writeFileSync(join(files, 'cut.jsonl'), `${lines.slice(0, -1).join('\n')}\n`)
    const target = await openPGliteStore({ dataDir: tempDataDir(dirs) })
    try {
      await expect(restoreBackup(target, join(files, 'cut.jsonl'))).rejects.toThrow('ends early')
      expect(await target.db.selectFrom('users').select('id').execute()).toEqual([])
    } finally {
      await target.close()
    }
  }, 120_000)
})
