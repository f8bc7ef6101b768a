import { describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { expectProblem, expectStatus, H } from './catalog-fixture.ts'

const server = useTestServer()

describe('limit, one rule for every list that takes it (docs/api/README.md, Lists and pagination)', () => {
  it('reads a limit above 100 as 100, and refuses 0, a negative, a fraction or text', async () => {
    const { api } = await server.newOwner()
    const sub = expectStatus(
      await api.post(`${H}/webhooks/subscriptions`, { url: 'http://127.0.0.1:9/', eventTypes: ['*'] }),
      201,
    )
    const lists = [
      `${H}/transactions`,
      '/notifications',
      `${H}/webhooks/subscriptions/${sub.id}/deliveries`,
      `${H}/ai/conversations`,
      `${H}/ai/actions`,
      `${H}/ai/insights`,
    ]
    for (const list of lists) {
      for (const limit of ['101', '100000000000000000000']) {
        const page = expectStatus(await api.get(`${list}?limit=${limit}`), 200)
        expect(page, `${list}?limit=${limit}`).toMatchObject({ items: expect.any(Array) })
      }
      for (const limit of ['0', '-1', '1.5', 'ten']) {
        expectProblem(await api.get(`${list}?limit=${limit}`), 400, 'VALIDATION_FAILED')
      }
    }
  })
})
