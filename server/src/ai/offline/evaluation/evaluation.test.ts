import { describe, expect, it } from 'vitest'
import { intentClassifier, stems } from '../classifier.ts'
import { expandCorpus } from '../corpus-expand.ts'
import { NameIndex } from '../names.ts'
import { understand } from '../understand.ts'
import { planHousehold } from './household-plan.ts'
import { evaluationQuestions } from './questions.ts'

describe('the evaluation set', () => {
  const today = new Date().toISOString().slice(0, 10)
  const plan = planHousehold(today)
  const names = new NameIndex([
    ...plan.categories.map((c) => ({ id: c.id, name: c.name, spelling: c.name, kind: 'category' as const })),
    ...plan.payees.map((p) => ({ id: p.id, name: p.name, spelling: p.name, kind: 'payee' as const })),
    ...plan.accounts.map((a) => ({ id: a.id, name: a.name, spelling: a.name, kind: 'account' as const })),
    ...plan.tags.map((t) => ({ id: t.id, name: t.name, spelling: t.name, kind: 'tag' as const })),
  ])

  it('holds at least 300 questions, none of them in the training corpus once names and periods are masked', () => {
    const questions = evaluationQuestions(today)
    expect(questions.length).toBeGreaterThanOrEqual(300)
    const corpus = new Set(expandCorpus().map((e) => stems(e.text).join(' ')))
    const classifier = intentClassifier()
    const inCorpus = questions
      .map((q) => ({ q: q.question, masked: understand(q.question, today, names, classifier).masked }))
      .filter(({ masked }) => corpus.has(stems(masked).join(' ')))
    expect(inCorpus).toEqual([])
  })
})
