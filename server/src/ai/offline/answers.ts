import type { ChatRequest } from '../provider.ts'
import { type AnswerKit, bullets, Decline } from './answer-kit.ts'
import { answerBalances, answerLoans, answerNetWorth } from './answers-accounts.ts'
import { answerSubscriptions, answerUpcoming } from './answers-bills.ts'
import { answerBudget, answerForecast, answerOverspent, answerReadyToAssign } from './answers-budget.ts'
import { answerCategorize, answerCreateRule, answerMove } from './answers-proposals.ts'
import {
  answerAverage,
  answerCompare,
  answerCount,
  answerIncome,
  answerLargest,
  answerSpending,
  answerTop,
} from './answers-spending.ts'
import type { Intent } from './corpus.ts'
import { formatCents } from './money.ts'
import type { Named } from './names.ts'
import type { Understanding } from './understand.ts'

/** One question per intent, as the assistant offers them when it did not understand. */
export const EXAMPLES: Record<Intent, string> = {
  spending: 'How much did we spend on groceries last month?',
  breakdown: 'Break down last month’s spending by category',
  income: 'How much did we earn in October?',
  top: 'Which payee did we pay the most this year?',
  compare: 'How does this month compare to last month?',
  average: 'What do we spend on dining out per month on average?',
  count: 'How many times did we eat out last month?',
  largest: 'What were our biggest purchases this month?',
  balances: 'What are our account balances?',
  netWorth: 'What is our net worth?',
  budget: 'How much is left in Dining Out?',
  overspent: 'Which categories are overspent?',
  readyToAssign: 'How much is ready to assign?',
  upcoming: 'What bills are coming up?',
  subscriptions: 'What subscriptions do we pay for?',
  loans: 'When will the car loan be paid off?',
  forecast: 'How much will we spend this month?',
  move: 'Move 50 from Dining Out to Groceries this month',
  categorize: 'Categorize every Netflix transaction as Subscriptions',
  createRule: 'Create a rule for Netflix as Subscriptions',
  help: 'What can you do?',
  outOfScope: 'What can you do?',
}

const ANSWERS: Record<Exclude<Intent, 'help' | 'outOfScope'>, (kit: AnswerKit) => Promise<string>> = {
  spending: answerSpending,
  breakdown: answerSpending,
  income: answerIncome,
  top: answerTop,
  compare: answerCompare,
  average: answerAverage,
  count: answerCount,
  largest: answerLargest,
  balances: answerBalances,
  netWorth: answerNetWorth,
  budget: answerBudget,
  overspent: answerOverspent,
  readyToAssign: answerReadyToAssign,
  upcoming: answerUpcoming,
  subscriptions: answerSubscriptions,
  loans: answerLoans,
  forecast: answerForecast,
  move: answerMove,
  categorize: answerCategorize,
  createRule: answerCreateRule,
}

/** The opening words of every answer that is not an answer: tests and the evaluation look for them. */
export const NOT_UNDERSTOOD = 'I did not understand that well enough to answer'
export const OUT_OF_SCOPE = 'Sorry, that is not something I can help with'

function help(): string {
  const intents = Object.keys(ANSWERS) as (keyof typeof ANSWERS)[]
  return `Here is what I can answer without a network, from your own figures:\n${bullets(intents.map((i) => EXAMPLES[i]))}`
}

function closest(u: Understanding): string {
  const offers = [
    ...new Set(u.closest.filter((i) => i !== 'help' && i !== 'outOfScope').map((i) => EXAMPLES[i])),
  ]
  const list = offers.length ? offers : [EXAMPLES.spending, EXAMPLES.balances, EXAMPLES.budget]
  return `Questions like these I can answer:\n${bullets(list)}`
}

/** Answers what was understood with the engine's figures; says so, and answers nothing, when it was not. */
export async function answer(u: Understanding, req: ChatRequest, names: readonly Named[]): Promise<string> {
  const foreign =
    u.closest[0] === 'outOfScope' || (u.strangeWords.length > 0 && u.closest.includes('outOfScope'))
  if (u.intent === 'outOfScope' || (u.intent === null && foreign)) {
    return `${OUT_OF_SCOPE}: I answer questions about this household's own money and prepare budget changes you confirm. I cannot do other things, such as sending money, managing members, keys or invitations, or giving advice. ${help()}`
  }
  if (u.intent === null) {
    const strange = u.strangeWords.length
      ? ` I do not know "${u.strangeWords.join(' ')}": it is none of your categories, payees, accounts or tags.`
      : ''
    return `${NOT_UNDERSTOOD}: "${req.message.trim().slice(0, 120)}".${strange} ${closest(u)}`
  }
  if (u.intent === 'help') return help()
  const kit: AnswerKit = { req, u, names, money: (c) => formatCents(c, req.currency) }
  try {
    return await ANSWERS[u.intent](kit)
  } catch (error) {
    if (error instanceof Decline) return `${NOT_UNDERSTOOD}: ${error.message} ${closest(u)}`
    throw error
  }
}
