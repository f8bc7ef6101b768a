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
