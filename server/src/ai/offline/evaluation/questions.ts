import type { Expectation } from './expected.ts'

/** One evaluation question and what its answer must show. */
export interface EvaluationQuestion {
  question: string
  expect: Expectation
}

type Q = [string, Expectation]
const each = <T>(values: T[], make: (v: T) => Q): Q[] => values.map(make)

const CATS = ['Groceries', 'Dining Out', 'Transport', 'Pets', 'Entertainment', 'Utilities']
const PAYEES = [
  'FreshMart',
  'Shell',
  'Pizza Planet',
  'Pet Palace',
  'Cinema City',
  'Green Grocer',
  'Metro Transit',
]
/** How people mistype the household's names; each spelling stands for the name after it. */
const TYPOS: [string, string][] = [
  ['grocerys', 'Groceries'],
  ['groceris', 'Groceries'],
  ['dinning out', 'Dining Out'],
  ['transprt', 'Transport'],
  ['freshmrt', 'FreshMart'],
  ['pizza planit', 'Pizza Planet'],
  ['entertainmnet', 'Entertainment'],
  ['utilites', 'Utilities'],
]
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
]

/**
 * The evaluation set: questions phrased apart from the training corpus (a test keeps the two
 * disjoint), over the generated household's names, each with what a right answer shows.
 */
export function evaluationQuestions(today: string): EvaluationQuestion[] {
  const m = Number(today.slice(5, 7))
  const prev = MONTH_NAMES[(m + 10) % 12]!
  const prev2 = MONTH_NAMES[(m + 9) % 12]!
  const prevNum = ((m + 10) % 12) + 1
  const prev2Num = ((m + 9) % 12) + 1
  const monthEnd = new Date(Date.UTC(Number(today.slice(0, 4)), m, 0)).getUTCDate()
  const qs: Q[] = [
    // Spending on one thing.
    ...each(CATS, (c) => [
      `what was our total ${c.toLowerCase()} spending for last month?`,
      { intent: 'spending', target: c, period: 'lastMonth' },
    ]),
    ...each(CATS, (c) => [
      `how much has ${c} cost us so far this year`,
      { intent: 'spending', target: c, period: 'ytd' },
    ]),
    ...each(CATS.slice(0, 4), (c) => [
      `what did ${c.toLowerCase()} set us back last mo`,
      { intent: 'spending', target: c, period: 'lastMonth' },
    ]),
    ...each(PAYEES, (p) => [
      `how much money have we paid to ${p} this year`,
      { intent: 'spending', target: p, period: 'ytd' },
    ]),
    ...each(PAYEES, (p) => [
      `what did we drop at ${p} in ${prev}?`,
      { intent: 'spending', target: p, period: { month: prevNum } },
    ]),
    ...each(PAYEES.slice(0, 4), (p) => [
      `spent at ${p} in the last 30 days?`,
      { intent: 'spending', target: p, period: 'last30' },
    ]),
    ...each(TYPOS, ([t, n]) => [
      `how much on ${t} last month`,
      { intent: 'spending', target: n, period: 'lastMonth' },
    ]),
    ...each(TYPOS.slice(0, 5), ([t, n]) => [`ytd ${t}`, { intent: 'spending', target: n, period: 'ytd' }]),
    [
      'we blew how much on takeout last mo?',
      { intent: 'spending', target: 'Dining Out', period: 'lastMonth' },
    ],
    [
      `how much did we spend eating out in ${prev2}`,
      { intent: 'spending', target: 'Dining Out', period: { month: prev2Num } },
    ],
    ['restaurant money last month', { intent: 'spending', target: 'Dining Out', period: 'lastMonth' }],
    ['what did gas cost us this year', { intent: 'spending', target: 'Transport', period: 'ytd' }],
    ...each(['Everyday Checking', 'Visa Card'], (a) => [
      `what went out of ${a} last month`,
      { intent: 'spending', target: a, period: 'lastMonth' },
    ]),
    ...each(['vacation', 'work'], (t) => [
      `how much did the ${t} stuff cost this year`,
      { intent: 'spending', target: t, period: 'ytd' },
    ]),
    ...each(CATS.slice(0, 3), (c) => [
      `what has ${c.toLowerCase()} cost since the 3rd`,
      { intent: 'spending', target: c, period: { sinceDay: 3 } },
    ]),
    ...each(CATS.slice(0, 3), (c) => [
      `how much went on ${c.toLowerCase()} over the last three months`,
      { intent: 'spending', target: c, period: { lastMonths: 3 } },
    ]),
    ...each(CATS.slice(0, 3), (c) => [
      `what did ${c.toLowerCase()} total in ${prev2}?`,
      { intent: 'spending', target: c, period: { month: prev2Num } },
    ]),
    ...each(PAYEES.slice(0, 3), (p) => [
      `total paid to ${p} last year`,
      { intent: 'spending', target: p, period: 'lastYear' },
    ]),
    // Spending in all, and broken down.
    ['all in, what did we spend last month', { intent: 'breakdown', period: 'lastMonth' }],
    ['so what have we spent this month in total', { intent: 'breakdown', period: 'thisMonth' }],
    ['total outgoings ytd', { intent: 'breakdown', period: 'ytd' }],
    [`our total spend for ${prev}`, { intent: 'breakdown', period: { month: prevNum } }],
    [
      "break last month's spending down by category",
      { intent: 'breakdown', period: 'lastMonth', by: 'category' },
    ],
    ['categorise our spending for last month', { intent: 'breakdown', period: 'lastMonth', by: 'category' }],
    ['show me where the money went this month', { intent: 'breakdown', period: 'thisMonth' }],
    ['spending split by payee last month', { intent: 'breakdown', period: 'lastMonth', by: 'payee' }],
    [`${prev} spending by category`, { intent: 'breakdown', period: { month: prevNum } }],
    ['per-category spend this year', { intent: 'breakdown', period: 'ytd', by: 'category' }],
    ['what did we spend our money on last year', { intent: 'breakdown', period: 'lastYear' }],
    ['breakdown by payee this year pls', { intent: 'breakdown', period: 'ytd', by: 'payee' }],
    ['total money out in the last 30 days', { intent: 'breakdown', period: 'last30' }],
    [`what were our outgoings in ${prev2}`, { intent: 'breakdown', period: { month: prev2Num } }],
    [
      'give me a category breakdown for this month',
      { intent: 'breakdown', period: 'thisMonth', by: 'category' },
    ],
    ['spent since the 1st, all categories', { intent: 'breakdown', period: { sinceDay: 1 } }],
    // Income.
    [`what did we earn during ${prev} in total?`, { intent: 'income', period: { month: prevNum } }],
    ['what were we paid last month', { intent: 'income', period: 'lastMonth' }],
    ['ytd income', { intent: 'income', period: 'ytd' }],
    ['how much money did we make last year', { intent: 'income', period: 'lastYear' }],
    ['what did we bring home this month', { intent: 'income', period: 'thisMonth' }],
    [`total earnings for ${prev2}`, { intent: 'income', period: { month: prev2Num } }],
    ['how much income came in over the last 3 months', { intent: 'income', period: { lastMonths: 3 } }],
    ['how much have we been paid this year', { intent: 'income', period: 'ytd' }],
    ['what were our wages last month', { intent: 'income', period: 'lastMonth' }],
    ['how much have we earned since March', { intent: 'income', period: { sinceMonth: 3 } }],
    // Top payees and categories.
    ['last month, which payee got paid the most?', { intent: 'top', period: 'lastMonth', by: 'payee' }],
    ['who did we give the most money to this year', { intent: 'top', period: 'ytd', by: 'payee' }],
    ['which store takes most of our cash this year', { intent: 'top', period: 'ytd', by: 'payee' }],
    ['biggest category last month', { intent: 'top', period: 'lastMonth', by: 'category' }],
    ['what category did we spend the most on this year', { intent: 'top', period: 'ytd', by: 'category' }],
    ['top 3 categories last year', { intent: 'top', period: 'lastYear', by: 'category' }],
    ['ytd top 5 payees', { intent: 'top', period: 'ytd', by: 'payee' }],
    [
      `which merchant got the most from us in ${prev}`,
      { intent: 'top', period: { month: prevNum }, by: 'payee' },
    ],
    ['where do we spend the most money this month', { intent: 'top', period: 'thisMonth', by: 'category' }],
    [
      'which category ate most of our money last month',
      { intent: 'top', period: 'lastMonth', by: 'category' },
    ],
    // Comparisons.
    [
      'how is this month stacking up against last month?',
      { intent: 'compare', a: 'thisMonth', b: 'lastMonth' },
    ],
    ['spending this month against last month', { intent: 'compare', a: 'thisMonth', b: 'lastMonth' }],
    [
      `${prev} spending versus ${prev2} spending`,
      { intent: 'compare', a: { month: prevNum }, b: { month: prev2Num } },
    ],
    [
      `compare spending in ${prev} with ${prev2}`,
      { intent: 'compare', a: { month: prevNum }, b: { month: prev2Num } },
    ],
    ['have we spent more this year than last year', { intent: 'compare', a: 'ytd', b: 'lastYear' }],
    ...each(CATS.slice(0, 4), (c) => [
      `${c.toLowerCase()}: this month compared with last month`,
      { intent: 'compare', a: 'thisMonth', b: 'lastMonth', target: c },
    ]),
    ...each(CATS.slice(0, 3), (c) => [
      `was ${c.toLowerCase()} higher last month than in ${prev2}`,
      { intent: 'compare', a: 'lastMonth', b: { month: prev2Num }, target: c },
    ]),
    ['how are we doing compared to last month', { intent: 'compare', a: 'thisMonth', b: 'lastMonth' }],
    [
      'are we spending more this month than last month?',
      { intent: 'compare', a: 'thisMonth', b: 'lastMonth' },
    ],
    // Averages.
    ...each(CATS, (c) => [
      `${c.toLowerCase()}: avg per month?`,
      { intent: 'average', target: c, period: 'default12' },
    ]),
    ...each(PAYEES.slice(0, 4), (p) => [
      `on average what do we pay ${p} each month`,
      { intent: 'average', target: p, period: 'default12' },
    ]),
    ['food avg per month', { intent: 'average', target: 'Groceries', period: 'default12' }],
    ['this year, average monthly spend', { intent: 'average', period: 'ytd' }],
    [
      'what do we typically spend per month on groceries this year',
      { intent: 'average', target: 'Groceries', period: 'ytd' },
    ],
    ['monthly average spending last year', { intent: 'average', period: 'lastYear' }],
    ['typical monthly transport cost', { intent: 'average', target: 'Transport', period: 'default12' }],
    // Counts.
    [
      'how many times did we eat out last month',
      { intent: 'count', target: 'Dining Out', period: 'lastMonth' },
    ],
    ...each(PAYEES, (p) => [
      `how many times did we end up at ${p} last month`,
      { intent: 'count', target: p, period: 'lastMonth' },
    ]),
    ...each(PAYEES.slice(0, 4), (p) => [
      `number of ${p} purchases this year`,
      { intent: 'count', target: p, period: 'ytd' },
    ]),
    ...each(CATS.slice(0, 4), (c) => [
      `how many ${c.toLowerCase()} transactions were there in ${prev}`,
      { intent: 'count', target: c, period: { month: prevNum } },
    ]),
    [
      'how often did we get takeout this month',
      { intent: 'count', target: 'Dining Out', period: 'thisMonth' },
    ],
    // Largest expenses.
    ["last month's biggest purchases", { intent: 'largest', period: 'lastMonth' }],
    ['what were the largest expenses this year', { intent: 'largest', period: 'ytd' }],
    ['the top 10 transactions of last year', { intent: 'largest', period: 'lastYear' }],
    [`largest charges in ${prev}`, { intent: 'largest', period: { month: prevNum } }],
    ['the priciest things bought this month', { intent: 'largest', period: 'thisMonth' }],
    ['our 3 biggest expenses in the last 30 days', { intent: 'largest', period: 'last30' }],
    // Balances and net worth.
    ['what are our balances', { intent: 'balances' }],
    ['what is in everyday checking right now', { intent: 'balances', account: 'Everyday Checking' }],
    ["what's the checking balance", { intent: 'balances', account: 'Everyday Checking' }],
    ['how much do we owe on the visa', { intent: 'balances', account: 'Visa Card' }],
    ['balance on the visa card?', { intent: 'balances', account: 'Visa Card' }],
    ['how much money have we got right now', { intent: 'balances' }],
    ["what's our net worth now", { intent: 'netWorth' }],
    ['networth pls', { intent: 'netWorth' }],
    ['how much are we worth right now', { intent: 'netWorth' }],
    ['assets minus debts', { intent: 'netWorth' }],
    // Budget.
    ...each(CATS, (c) => [`how much ${c.toLowerCase()} money is left`, { intent: 'budget', category: c }]),
    ...each(CATS.slice(0, 4), (c) => [
      `what's left in the ${c.toLowerCase()} budget this month`,
      { intent: 'budget', category: c },
    ]),
    ...each(CATS.slice(0, 3), (c) => [
      `can we still spend on ${c.toLowerCase()}`,
      { intent: 'budget', category: c },
    ]),
    ['how is the budget looking this month', { intent: 'budget' }],
    ['which of our categories are overspent', { intent: 'overspent' }],
    ['are we over budget anywhere', { intent: 'overspent' }],
    ['what have we overspent on this month', { intent: 'overspent' }],
    ['how much money is ready to assign', { intent: 'readyToAssign' }],
    ['how much money still needs a job', { intent: 'readyToAssign' }],
    ['whats unassigned right now', { intent: 'readyToAssign' }],
    // Bills, subscriptions, forecast.
    ['which bills are coming up?', { intent: 'upcoming' }],
    ['any bills due soon', { intent: 'upcoming' }],
    ['what payments are due next', { intent: 'upcoming' }],
    ["what's coming out of our account soon", { intent: 'upcoming' }],
    ['what subscriptions are we paying for', { intent: 'subscriptions' }],
    ['list recurring charges', { intent: 'subscriptions' }],
    ['what do we pay monthly', { intent: 'subscriptions' }],
    ['how much are we on track to spend this month?', { intent: 'forecast' }],
    ['spending forecast for the month', { intent: 'forecast' }],
    ['where will spending end up this month', { intent: 'forecast' }],
    // Proposals.
    ['please move 50 from dining out over to groceries', { intent: 'move', amountCents: 5000 }],
    ['shift $25.50 from entertainment into pets', { intent: 'move', amountCents: 2550 }],
    ['take 100 out of transport and give it to groceries', { intent: 'move', amountCents: 10000 }],
    ['put all pizza planet purchases in dining out', { intent: 'categorize' }],
    ['categorize each shell transaction as transport', { intent: 'categorize' }],
    ['make a rule that puts netflix under entertainment', { intent: 'createRule' }],
    ['always file cinema city as entertainment from now on', { intent: 'createRule' }],
    // More of each, over other names and periods.
    ...each(CATS, (c) => [
      `and ${c.toLowerCase()} so far this month?`,
      { intent: 'spending', target: c, period: 'thisMonth' },
    ]),
    ...each(PAYEES, (p) => [
      `how much have we spent at ${p} since ${prev2}`,
      { intent: 'spending', target: p, period: { sinceMonth: prev2Num } },
    ]),
    ...each(CATS, (c) => [
      `what was the ${c.toLowerCase()} bill for ${prev}`,
      { intent: 'spending', target: c, period: { month: prevNum } },
    ]),
    ...each(PAYEES, (p) => [
      `money that went to ${p} last month`,
      { intent: 'spending', target: p, period: 'lastMonth' },
    ]),
    ...each(TYPOS, ([t, n]) => [`this month's ${t}`, { intent: 'spending', target: n, period: 'thisMonth' }]),
    ...each(CATS, (c) => [
      `what did ${c.toLowerCase()} add up to over the past 30 days`,
      { intent: 'spending', target: c, period: 'last30' },
    ]),
    ...each(PAYEES, (p) => [
      `what has the ${p} spend been over the last 3 months`,
      { intent: 'spending', target: p, period: { lastMonths: 3 } },
    ]),
    ...each(CATS, (c) => [`is any ${c.toLowerCase()} money available?`, { intent: 'budget', category: c }]),
    ...each(CATS, (c) => [
      `how many times this year did we buy ${c.toLowerCase()}`,
      { intent: 'count', target: c, period: 'ytd' },
    ]),
    ...each(PAYEES.slice(4), (p) => [
      `on average what do we pay ${p} each month`,
      { intent: 'average', target: p, period: 'default12' },
    ]),
    ...each(CATS, (c) => [
      `mean monthly ${c.toLowerCase()} last year`,
      { intent: 'average', target: c, period: 'lastYear' },
    ]),
    ...each(CATS, (c) => [
      `${c.toLowerCase()} ${prev} versus ${prev2}`,
      { intent: 'compare', a: { month: prevNum }, b: { month: prev2Num }, target: c },
    ]),
    ['largest purchase this year', { intent: 'largest', period: 'ytd' }],
    ['most expensive thing last month', { intent: 'largest', period: 'lastMonth' }],
    ['the big spends of the last 30 days', { intent: 'largest', period: 'last30' }],
    [`biggest transactions in ${prev2}`, { intent: 'largest', period: { month: prev2Num } }],
    ['so far this year, our earnings', { intent: 'income', period: 'ytd' }],
    [`what came in as income in ${prev}`, { intent: 'income', period: { month: prevNum } }],
    ['what was our take home pay last month', { intent: 'income', period: 'lastMonth' }],
    ['our total income for last year', { intent: 'income', period: 'lastYear' }],
    ['who got most of our money last year', { intent: 'top', period: 'lastYear', by: 'payee' }],
    [`top categories in ${prev}`, { intent: 'top', period: { month: prevNum }, by: 'category' }],
    ['which shop did we spend the most at last month', { intent: 'top', period: 'lastMonth', by: 'payee' }],
    ['what costs us the most this year', { intent: 'top', period: 'ytd', by: 'category' }],
    ['balance of the visa card', { intent: 'balances', account: 'Visa Card' }],
    ['how much cash do we have in checking', { intent: 'balances', account: 'Everyday Checking' }],
    ['show all account balances', { intent: 'balances' }],
    ['upcoming bills this month', { intent: 'upcoming', days: monthEnd - Number(today.slice(8, 10)) + 1 }],
    ['which bills fall due in the next 10 days', { intent: 'upcoming', days: 10 }],
    ['our recurring payments', { intent: 'subscriptions' }],
    ['what memberships are we paying', { intent: 'subscriptions' }],
    ["this month's projected spending", { intent: 'forecast' }],
    ['at this pace what will we spend this month', { intent: 'forecast' }],
    // Out of scope: declined politely.
    ['translate hello into french', { intent: 'outOfScope' }],
    ['what is the capital of peru', { intent: 'outOfScope' }],
    ['change my password please', { intent: 'outOfScope' }],
    ['pay the electricity bill for me', { intent: 'outOfScope' }],
    ['recommend a good stock', { intent: 'outOfScope' }],
    ['delete my user account', { intent: 'outOfScope' }],
    ['play a song', { intent: 'outOfScope' }],
    ['what time is it in tokyo', { intent: 'outOfScope' }],
    ['tell me a joke about money', { intent: 'outOfScope' }],
    ['how will the weather be tomorrow', { intent: 'outOfScope' }],
    ['should we buy some bitcoin', { intent: 'outOfScope' }],
    ['send 200 to my sister', { intent: 'outOfScope' }],
    ['invite my partner to our household', { intent: 'outOfScope' }],
    ['make me a new api key', { intent: 'outOfScope' }],
    ['remove my flatmate from the household', { intent: 'outOfScope' }],
    ['write a haiku', { intent: 'outOfScope' }],
    ["who won last night's game", { intent: 'outOfScope' }],
    ['book me a table for two', { intent: 'outOfScope' }],
  ]
  return qs.map(([question, expect]) => ({ question, expect }))
}
