import { SCOPES } from '@hearth/engine'
import { describe, expect, it } from 'vitest'
import { evaluate, tally } from '../../server/src/ai/offline/evaluation/evaluate.ts'
import { planHousehold } from '../../server/src/ai/offline/evaluation/household-plan.ts'
import { evaluationQuestions } from '../../server/src/ai/offline/evaluation/questions.ts'
import { seedHousehold } from '../../server/src/ai/offline/evaluation/seed.ts'
import { useTestServer } from '../src/index.ts'
import { expectStatus, H } from './catalog-fixture.ts'

// Three hundred turns in one test: no daily cap.
const server = useTestServer({
  ai: {
    provider: { kind: 'offline' },
    caps: {
      userDailyRequests: 0,
      userDailyTokens: 0,
      householdMonthlyRequests: 0,
      householdMonthlyTokens: 0,
    },
  },
})

describe('the offline assistant evaluation set', () => {
  // Three hundred turns over HTTP: about 30 s on a loaded machine.
  it('answers every question right or declines it, never wrong, and at least 90% right', {
    timeout: 240_000,
  }, async () => {
    const owner = await server.newOwner()
    expectStatus(await owner.api.post(`${H}/ai/consent`), 200)
    const today = new Date().toISOString().slice(0, 10)
    const plan = planHousehold(today, 1_500)
    const ctx = {
      userId: owner.userId,
      householdId: owner.householdId,
      role: 'owner' as const,
      scopes: [...SCOPES],
      now: new Date(),
    }
    await seedHousehold(server.store, ctx, plan)
    const judged = await evaluate(server.url, owner.api.token, plan, evaluationQuestions(today))
    const wrong = judged.filter((j) => j.verdict === 'wrong')
    const all = tally(judged).get('all')!
    expect(
      wrong.map((w) => `${w.question}\n  wanted ${w.wanted.join(' | ')}\n  got ${w.answer.slice(0, 300)}`),
    ).toEqual([])
    expect(judged.length).toBeGreaterThanOrEqual(300)
    expect(
      all.right / judged.length,
      JSON.stringify(judged.filter((j) => j.verdict === 'declined').map((j) => j.question)),
    ).toBeGreaterThanOrEqual(0.9)
  })
})
