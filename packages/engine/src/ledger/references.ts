import type { Transaction } from 'kysely'
import type { Database } from '../database.ts'
import { conflict, EngineError } from '../errors.ts'
import type { AccountRow } from './tables.ts'

type Tx = Transaction<Database>

/** The tables a transaction may point at. */
export type ReferenceTable = 'accounts' | 'categories' | 'payees' | 'tags' | 'flags'

/** One id a request refers to, and the request path it came from (`categoryId`, `transactions.3.tagIds.0`). */
export interface ReferenceUse {
  table: ReferenceTable
  id: string
  path: string
  index?: number
}

const RESOURCE: Record<ReferenceTable, string> = {
  accounts: 'Account',
  categories: 'Category',
  payees: 'Payee',
  tags: 'Tag',
  flags: 'Flag',
}

/** 404 for an id in a request that names no live row of this household, saying which field held it. */
export function referenceNotFound(use: ReferenceUse): EngineError {
  const resource = RESOURCE[use.table]
  return new EngineError(404, 'NOT_FOUND', `${resource} ${use.id} (${use.path}) was not found.`, {
    errors: [{ path: use.path, message: `${resource} not found.`, code: 'not_found' }],
    extra: { resource, path: use.path, ...(use.index !== undefined && { index: use.index }) },
  })
}

/**
 * Checks every referenced id with one query per table and returns the live accounts found.
 * The first missing, foreign or soft-deleted id (in request order) answers 404, so a bad
 * reference never reaches the database as a foreign-key error.
 */
export async function requireReferences(
  tx: Tx,
  householdId: string,
  uses: readonly ReferenceUse[],
): Promise<Map<string, AccountRow>> {
  const wanted = new Map<ReferenceTable, Set<string>>()
  for (const use of uses) {
    const set = wanted.get(use.table) ?? new Set<string>()
    set.add(use.id)
    wanted.set(use.table, set)
  }
  const found = new Map<ReferenceTable, Set<string>>()
  const accounts = new Map<string, AccountRow>()
  for (const [table, ids] of wanted) {
    const list = [...ids]
    if (table === 'accounts') {
      const rows = await tx
        .selectFrom('accounts')
        .selectAll()
        .where('household_id', '=', householdId)
        .where('id', 'in', list)
        .where('deleted_at', 'is', null)
        .execute()
      for (const row of rows) accounts.set(row.id, row)
      found.set(table, new Set(accounts.keys()))
      continue
    }
    let query = tx
      .selectFrom(table)
      .select('id')
      .where('household_id', '=', householdId)
      .where('id', 'in', list)
    if (table === 'categories' || table === 'payees') query = query.where('deleted_at', 'is', null)
    const rows = await query.execute()
    found.set(table, new Set(rows.map((r) => r.id)))
  }
  for (const use of uses) {
    if (!found.get(use.table)?.has(use.id)) throw referenceNotFound(use)
  }
  return accounts
}

/** New rows may only be booked on open accounts. */
export function requireOpenAccount(account: AccountRow, path = 'accountId', index?: number): void {
  if (account.status !== 'open') {
    throw conflict(
      'ACCOUNT_CLOSED',
      `Account ${account.id} is closed; reopen it before adding or moving rows.`,
      {
        path,
        ...(index !== undefined && { index }),
      },
    )
  }
}
