import type { Store } from '@hearth/engine'
import { ulid } from 'ulidx'
import { expect } from 'vitest'
import type { ApiClient, ApiResponse } from '../src/index.ts'

/** The household prefix tests speak to: the caller's default household. */
export const H = '/households/current'

/** Asserts a problem+json answer with this status and stable code, and returns its body. */
export function expectProblem(res: ApiResponse, status: number, code: string): any {
  expect(res.status, JSON.stringify(res.body)).toBe(status)
  expect(res.headers.get('content-type')).toContain('application/problem+json')
  expect(res.body).toMatchObject({ status, code, type: expect.any(String), title: expect.any(String) })
  return res.body
}

/** Asserts a status and returns the JSON body, showing the body when the status is wrong. */
export function expectStatus<T = any>(res: ApiResponse<T>, status: number): T {
  expect(res.status, JSON.stringify(res.body)).toBe(status)
  return res.body
}

/** Creates a category group over HTTP and returns it. */
export async function createGroup(api: ApiClient, name: string, extra: Record<string, unknown> = {}) {
  return expectStatus(await api.post(`${H}/category-groups`, { name, ...extra }), 201)
}

/** Creates a category over HTTP and returns it. */
export async function createCategory(
  api: ApiClient,
  groupId: string,
  name: string,
  extra: Record<string, unknown> = {},
) {
  return expectStatus(await api.post(`${H}/categories`, { groupId, name, ...extra }), 201)
}

/**
 * Puts a tag or flag on a fresh transaction straight in the database (the transaction routes
 * belong to the ledger), and returns a counter of that label's links.
 */
export async function labelTransaction(
  store: Store,
  householdId: string,
  kind: 'tag' | 'flag',
  labelId: string,
): Promise<() => Promise<number>> {
  const accountId = ulid()
  const transactionId = ulid()
  await store.db.transaction().execute(async (tx) => {
    await tx
      .insertInto('accounts')
      .values({
        household_id: householdId,
        id: accountId,
        name: 'Checking',
        type: 'cash',
        subtype: null,
        currency: 'EUR',
        group_name: 'Cash',
        created_at: new Date(),
        updated_at: new Date(),
      })
      .execute()
    await tx
      .insertInto('transactions')
      .values({
        household_id: householdId,
        id: transactionId,
        account_id: accountId,
        date: '2025-01-15',
        amount_cents: -1250,
        status: 'cleared',
        source: 'manual',
        created_at: new Date(),
        updated_at: new Date(),
      })
      .execute()
    const link = { household_id: householdId, id: ulid(), transaction_id: transactionId }
    if (kind === 'tag')
      await tx
        .insertInto('transaction_tags')
        .values({ ...link, tag_id: labelId })
        .execute()
    else
      await tx
        .insertInto('transaction_flags')
        .values({ ...link, flag_id: labelId })
        .execute()
  })
  return async () => {
    const table = kind === 'tag' ? 'transaction_tags' : 'transaction_flags'
    const rows = await store.db
      .selectFrom(table)
      .select('id')
      .where('household_id', '=', householdId)
      .where('transaction_id', '=', transactionId)
      .execute()
    return rows.length
  }
}
