import { expect } from 'vitest'

/** The body of a REST answer, failing the test with that body on anything but a 2xx. */
export async function expectOk<T>(answer: Promise<{ status: number; body: T }>): Promise<T> {
  const res = await answer
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300)
  return res.body
}
