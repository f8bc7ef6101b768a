import { NOT_UNDERSTOOD, OUT_OF_SCOPE } from '../answers.ts'
import { dollars, type Expectation, PlanFigures } from './expected.ts'
import type { HouseholdPlan } from './household-plan.ts'
import type { EvaluationQuestion } from './questions.ts'

/** How one answer did: right figures, an honest refusal, or a wrong figure or another question's answer. */
export type Verdict = 'right' | 'declined' | 'wrong'

export interface Judged {
  question: string
  intent: Expectation['intent']
  verdict: Verdict
  /** What a right answer had to show, and the answer itself. */
  wanted: string[]
  answer: string
}

/** An action a turn proposed. */
interface ProposedAction {
  operation: string
  args: Record<string, unknown>
}

/** A chat turn's text and proposed actions, read from the stream over HTTP. */
async function ask(
  url: string,
  token: string,
  message: string,
): Promise<{ text: string; actions: ProposedAction[] }> {
  const res = await fetch(`${url}/households/current/ai/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message }),
  })
  if (res.status !== 201) throw new Error(`chat answered ${res.status}: ${await res.text()}`)
  let text = ''
  const actions: ProposedAction[] = []
  for (const block of (await res.text()).split('\n\n')) {
    const event = /^event: (.*)$/m.exec(block)?.[1]
    const data = /^data: (.*)$/m.exec(block)?.[1]
    if (!event || !data) continue
    if (event === 'message.delta') text += JSON.parse(data).text
    if (event === 'action.proposed') actions.push(JSON.parse(data).action)
  }
  return { text, actions }
}

/** The REST answers the evaluation reads, as far as it reads them. */
interface RestAnswer {
  readyToAssignCents: string
  groups: { isIncome: boolean; categories: { id: string; name: string; availableCents: string }[] }[]
  items: { amountCents: string; kind: string }[]
  totals: { totalCents: string }
}

async function rest(url: string, token: string, path: string): Promise<RestAnswer> {
  const res = await fetch(`${url}/households/current${path}`, {
    headers: { authorization: `Bearer ${token}` },
  })
  if (!res.ok) throw new Error(`GET ${path} answered ${res.status}`)
  return res.json()
}

/** The strings a right answer contains: its figures, its names; REST answers where the plan cannot. */
async function wanted(e: Expectation, f: PlanFigures, url: string, token: string): Promise<string[]> {
  const month = f.plan.today.slice(0, 7)
  const cells = async () =>
    (await rest(url, token, `/budgets/${month}`)).groups
      .filter((g) => !g.isIncome)
      .flatMap((g) => g.categories)
  const abs = (c: string) => dollars(BigInt(c) < 0n ? -BigInt(c) : BigInt(c))
  switch (e.intent) {
    case 'spending':
      return [dollars(f.spent(e.period, e.target)), ...(e.target ? [e.target] : [])]
    case 'breakdown':
      return [`You spent ${dollars(f.spent(e.period))}`]
    case 'income':
      return [dollars(f.earned(e.period))]
    case 'top': {
      const [name, cents] = f.top(e.period, e.by)
      return [`was ${name}: ${dollars(cents)}`]
    }
    case 'compare':
      return [
        dollars(f.spent(e.a, e.target)),
        dollars(f.spent(e.b, e.target)),
        ...(e.target ? [e.target] : []),
      ]
    case 'average':
      return [`spent ${dollars(f.average(e.period, e.target))} a month`, ...(e.target ? [e.target] : [])]
    case 'count':
      return [`${f.rows(e.period, e.target).length} transaction`, e.target]
    case 'largest':
      return [dollars(f.largest(e.period))]
    case 'balances':
      return [dollars(f.balance(e.account)), ...(e.account ? [e.account] : [])]
    case 'netWorth':
      return [`is ${dollars(f.balance())}`]
    case 'budget': {
      if (!e.category)
        return [dollars(BigInt((await rest(url, token, `/budgets/${month}`)).readyToAssignCents))]
      const cell = (await cells()).find((c) => c.name === e.category)!
      return [e.category, abs(cell.availableCents)]
    }
    case 'overspent': {
      const over = (await cells()).filter((c) => BigInt(c.availableCents) < 0n)
      return over.length
        ? over.map((c) => `${c.name}: overspent by ${abs(c.availableCents)}`)
        : ['No category is overspent']
    }
    case 'readyToAssign':
      return [dollars(BigInt((await rest(url, token, `/budgets/${month}`)).readyToAssignCents))]
    case 'upcoming': {
      const up = await rest(url, token, `/recurrences/upcoming?days=${e.days ?? 30}`)
      const out = (up.items as { amountCents: string; kind: string }[]).filter(
        (i) => BigInt(i.amountCents) < 0n || i.kind === 'cardPaymentDue',
      )
      if (out.length === 0) return ['Nothing is due']
      return [
        `${abs(String(out.reduce((s, i) => s + (BigInt(i.amountCents) < 0n ? -BigInt(i.amountCents) : BigInt(i.amountCents)), 0n)))} in all`,
      ]
    }
    case 'subscriptions':
      return [`${f.plan.recurrences.length} active recurring payments`]
    case 'forecast':
      return [dollars(BigInt((await rest(url, token, `/forecasts/${month}`)).totals.totalCents))]
    default:
      return []
  }
}

/** Asks every question over HTTP and judges each answer against the plan's figures (and REST's). */
export async function evaluate(
  url: string,
  token: string,
  plan: HouseholdPlan,
  questions: EvaluationQuestion[],
): Promise<Judged[]> {
  const figures = new PlanFigures(plan)
  const out: Judged[] = []
  for (const { question, expect: e } of questions) {
    const { text, actions } = await ask(url, token, question)
    const must = await wanted(e, figures, url, token)
    let verdict: Verdict
    if (text.startsWith(NOT_UNDERSTOOD)) verdict = 'declined'
    else if (e.intent === 'outOfScope') verdict = text.startsWith(OUT_OF_SCOPE) ? 'right' : 'wrong'
    else if (text.startsWith(OUT_OF_SCOPE)) verdict = 'declined'
    else if (e.intent === 'move' || e.intent === 'categorize' || e.intent === 'createRule') {
      const op = { move: 'budgets.move', categorize: 'transactions.bulkUpdate', createRule: 'rules.create' }[
        e.intent
      ]
      const action = actions.find((a) => a.operation === op)
      // A payee whose rows are all in the category already needs no action; the plan knows they are.
      verdict =
        (action && (e.amountCents === undefined || action.args.amountCents === e.amountCents)) ||
        (e.intent === 'categorize' && /^Every .* transaction is already in /.test(text))
          ? 'right'
          : actions.length === 0 && text.startsWith('I could not tell')
            ? 'declined'
            : 'wrong'
    } else verdict = must.every((w) => text.includes(w)) ? 'right' : 'wrong'
    out.push({ question, intent: e.intent, verdict, wanted: must, answer: text })
  }
  return out
}

/** Right, declined and wrong per intent, and in all. */
export function tally(judged: Judged[]): Map<string, Record<Verdict, number>> {
  const t = new Map<string, Record<Verdict, number>>()
  for (const j of [...judged.map((x) => [x.intent, x] as const), ...judged.map((x) => ['all', x] as const)]) {
    const row = t.get(j[0]) ?? { right: 0, declined: 0, wrong: 0 }
    row[j[1].verdict]++
    t.set(j[0], row)
  }
  return t
}
