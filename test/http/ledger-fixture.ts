import { expect } from 'vitest'
import type { ApiClient } from '../src/index.ts'
import { expectStatus, H } from './catalog-fixture.ts'

/** Creates an account over HTTP and returns it. */
export async function createAccount(api: ApiClient, body: Record<string, unknown> = {}): Promise<any> {
  return expectStatus(await api.post(`${H}/accounts`, { name: 'Checking', type: 'cash', ...body }), 201)
}

/** Creates a transaction over HTTP and returns it. */
export async function createTransaction(
  api: ApiClient,
  accountId: string,
  body: Record<string, unknown> = {},
): Promise<any> {
  return expectStatus(
    await api.post(`${H}/transactions`, { accountId, date: '2025-03-10', amountCents: -1000, ...body }),
    201,
  )
}

/** Creates rows through the bulk endpoint and returns its result. */
export async function bulkCreate(api: ApiClient, transactions: Record<string, unknown>[]): Promise<any> {
  return expectStatus(await api.post(`${H}/transactions/bulk`, { transactions }), 201)
}

/** Reads every page of a transactions list, following nextCursor, and returns all rows in order. */
export async function listAll(api: ApiClient, query = '', limit = 100): Promise<any[]> {
  const rows: any[] = []
  let cursor: string | null = null
  do {
    const params = new URLSearchParams(query)
    params.set('limit', String(limit))
    if (cursor) params.set('cursor', cursor)
    const page: any = expectStatus(await api.get(`${H}/transactions?${params}`), 200)
    rows.push(...page.items)
    cursor = page.nextCursor
  } while (cursor)
  return rows
}

/** Reads an account over HTTP. */
export async function getAccount(api: ApiClient, accountId: string): Promise<any> {
  return expectStatus(await api.get(`${H}/accounts/${accountId}`), 200)
}

/**
 * Asserts the account's maintained balances equal the sums of its listed rows: balance over
 * every row, cleared balance over cleared and reconciled rows. Returns the account.
 */
export async function expectBalancesExact(api: ApiClient, accountId: string): Promise<any> {
  const account = await getAccount(api, accountId)
  const rows = await listAll(api, `accountId=${accountId}`)
  const sum = (list: any[]) => list.reduce((s, r) => s + BigInt(r.amountCents), 0n)
  expect(account.balanceCents).toBe(String(sum(rows)))
  expect(account.clearedBalanceCents).toBe(String(sum(rows.filter((r) => r.status !== 'pending'))))
  expect(BigInt(account.unclearedBalanceCents)).toBe(
    BigInt(account.balanceCents) - BigInt(account.clearedBalanceCents),
  )
  return account
}
