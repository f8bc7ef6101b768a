import {
  type EngineError,
  type HouseholdContext,
  operations,
  parseArgs,
  type Query,
  runMutation,
  runQuery,
} from '@hearth/engine'
import { deviceQueries } from '@hearth/engine/sync'
import { newHousehold, sharedStore } from '@hearth/test/store'
import { sql } from 'kysely'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { TableReads } from './table-reads.ts'

/** The table each noun's `get` reads its id from. */
const TABLE_OF: Record<string, string> = {
  accounts: 'accounts',
  categories: 'categories',
  categoryGroups: 'category_groups',
  flags: 'flags',
  payees: 'payees',
  tags: 'tags',
  transactions: 'transactions',
}

/** Extra argument sets that take a query down its other branches (filters, joins). */
const VARIANTS: Record<string, Record<string, unknown>[]> = {
  'transactions.list': [
    { search: 'rent' },
    { hasTag: true },
    { hasFlag: true },
    { uncategorized: true },
    { needsReview: true },
    { attention: true },
  ],
}

/** How many scans PostgreSQL's statistics count per table in the current transaction. */
async function scans(tx: Parameters<Query['run']>[0]): Promise<Map<string, number>> {
  const { rows } = await sql<{ relname: string; n: number }>`
    select relname, (coalesce(seq_scan, 0) + coalesce(idx_scan, 0))::int as n
    from pg_stat_xact_user_tables`.execute(tx)
  return new Map(rows.map((r) => [r.relname, r.n]))
}

/** Values for a required argument this test does not know, by its name. */
const GUESSES: [RegExp, () => unknown][] = [
  [/month$/i, () => '2026-01'],
  [/(date|asOf)$/i, () => '2026-01-15'],
  [/id$/i, () => ulid()],
  // A bank file to preview (imports.preview).
  [/^format$/, () => 'csv'],
  [/^content$/, () => 'Date,Payee,Amount\n2026-01-05,Corner shop,-3.10\n'],
]

/** `args`, with any missing required argument the query names filled by a guess from its name. */
function argsFor(name: string, query: Query, args: Record<string, unknown>): Record<string, unknown> {
  const filled = { ...args }
  for (let round = 0; round < 5; round++) {
    try {
      parseArgs(query.args, filled)
      return filled
    } catch (error) {
      const missing = (error as EngineError).errors ?? []
      const guessed = missing.flatMap(({ path }) => {
        const guess = GUESSES.find(([re]) => re.test(path))
        return guess && !path.includes('.') && !(path in filled) ? [[path, guess[1]()] as const] : []
      })
      if (guessed.length === 0) throw new Error(`${name}: no guess for ${JSON.stringify(missing)}`)
      for (const [path, value] of guessed) filled[path] = value
    }
  }
  return filled
}

async function seed(ctx: HouseholdContext) {
  const store = await sharedStore()
  const run = (op: unknown, args: unknown) => runMutation(store.db, op as never, args, ctx)
  const accountId = ulid()
  await run(operations.accounts.create, { id: accountId, name: 'Checking', type: 'cash' })
  const groupId = ulid()
  await run(operations.categoryGroups.create, { id: groupId, name: 'Bills' })
  const categoryId = ulid()
  await run(operations.categories.create, { id: categoryId, groupId, name: 'Rent' })
  const tagId = ulid()
  await run(operations.tags.create, { id: tagId, name: 'Home' })
  await run(operations.transactions.bulkCreate, {
    transactions: [
      {
        id: ulid(),
        accountId,
        date: '2026-01-02',
        amountCents: -1200,
        memo: 'rent',
        payeeName: 'Landlord',
        categoryId,
      },
      { id: ulid(), accountId, date: '2026-01-03', amountCents: 5000, tagIds: [tagId] },
    ],
  })
}

describe('TableReads', () => {
  it('names every table a device query scans, as PostgreSQL counts them', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    await seed(ctx)
    const queries = Object.entries(deviceQueries as unknown as Record<string, Record<string, Query>>)
    let checked = 0
    for (const [noun, verbs] of queries) {
      for (const [verb, query] of Object.entries(verbs)) {
        const name = `${noun}.${verb}`
        const table = TABLE_OF[noun]
        const first = table
          ? await sql<{
              id: string
            }>`select id from ${sql.table(table)} where household_id = ${ctx.householdId} limit 1`
              .execute(store.db)
              .then((r) => r.rows[0]?.id)
          : undefined
        const base = { id: first ?? ulid(), fromDate: '2026-01-01', toDate: '2026-01-31' }
        const takes = Object.keys((query.args as { shape?: object }).shape ?? {})
        for (const extra of [{}, ...(VARIANTS[name] ?? [])]) {
          // Only the arguments this query takes: its schema refuses unknown ones.
          const given = argsFor(name, query, {
            ...Object.fromEntries(Object.entries(base).filter(([k]) => takes.includes(k))),
            ...extra,
          })
          await store.db.transaction().execute(async (tx) => {
            const before = await scans(tx)
            const tracker = new TableReads()
            // A get of a row this seed lacks still scans what it would read: 404 is fine here.
            await runQuery(tx.withPlugin(tracker), query, given, ctx).catch((error) => {
              if ((error as { status?: number }).status !== 404) throw error
            })
            const after = await scans(tx)
            const scanned = [...after].filter(([t, n]) => n > (before.get(t) ?? 0)).map(([t]) => t)
            expect(
              scanned.filter((t) => !tracker.tables.has(t)),
              `${name} ${JSON.stringify(extra)}`,
            ).toEqual([])
            checked++
          })
        }
      }
    }
    expect(checked).toBe(
      queries.reduce((n, [, verbs]) => n + Object.keys(verbs).length, 0) +
        Object.values(VARIANTS).flat().length,
    )
  })

  it('reads table names from raw SQL fragments as well as from the query tree', async () => {
    const store = await sharedStore()
    const tracker = new TableReads()
    await sql`select 1 from tags t join "accounts" a on true where exists (select 1 from public.flags)`.execute(
      store.db.withPlugin(tracker),
    )
    await store.db.withPlugin(tracker).selectFrom('payees').select('id').limit(1).execute()
    expect([...tracker.tables].sort()).toEqual(['accounts', 'flags', 'payees', 'tags'])
  })
})
