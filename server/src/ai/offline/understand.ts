import { normalizePayeeName } from '@hearth/engine'
import type { IntentClassifier } from './classifier.ts'
import type { Intent } from './corpus.ts'
import { SLOT_TOKENS } from './corpus-expand.ts'
import { parseAmountCents } from './money.ts'
import type { Mention, NameIndex } from './names.ts'
import { type FoundPeriod, maskPeriods, TIME_WORDS } from './periods.ts'

/** How sure the classifier must be to answer; below it the assistant says what it did not understand. */
export const CONFIDENCE = 0.5

/**
 * Words an intent's question always has one of: a guess without them is not taken, so a confident
 * classifier cannot answer a question about spending with the budget ("on track to spend" is not
 * "what is left"). Spending, breakdowns and out-of-scope requests need no particular word.
 */
const CUES: Partial<Record<Intent, RegExp>> = {
  income:
    /earn|income|salar|pay|paid|wage|made|make|came in|come in|brought|bring|take home|deposit|paycheck/,
  top: /most|top|biggest|largest|rank|which|who|where/,
  compare:
    /compar|\bvs\b|versus|than|against|stack|differen|chang|up or down|more|less|better|worse|going up|side by side/,
  average: /aver|avg|typical|usual|mean|normal|per month|a month|monthly|each month/,
  count: /how many|how often|number|count|times|tally|frequen/,
  largest: /larg|big|top|expensive|pric|high|most|single/,
  balances: /balance|have|cash|money|owe|account|xaccountx|in the bank|got/,
  netWorth: /worth|own|asset|wealth|equity|net|position/,
  budget: /left|remain|availab|budget|afford|room|assign|still|on track|ok on/,
  overspent: /over|red\b|negative|short|blow|blew|break|need/,
  readyToAssign: /assign|budget|unassigned|job|rta/,
  upcoming: /due|coming|upcoming|next|schedul|soon|about to|bill|owe|come out/,
  subscriptions:
    /subscri|recurr|every month|monthly|repeat|regular|member|standing|auto|fixed|pay for|we pay|xcategoryx/,
  loans: /loan|mortgage|payoff|paid off|debt|interest|amortiz|payments left|finish paying|longer/,
  forecast: /forecast|project|pace|track|\bwill\b|going to|end up|predict|estimat|expect|likely|rest of|rate/,
  move: /move|shift|transfer|realloc|take|put|cover|give|pull|rebalanc/,
  categorize: /categor|file|label|mark|put|make all|should be|assign|reclass|change/,
  createRule: /rule|always|whenever|every time|auto|from now|in future/,
}

/** What a question asks, and what it names. */
export interface Understanding {
  /** Null: not understood well enough to answer. */
  intent: Intent | null
  confidence: number
  /** The intents it resembles most, best first (for "did you mean"). */
  closest: Intent[]
  masked: string
  periods: FoundPeriod[]
  mentions: Mention[]
  amountCents: number | null
  /** "top 10", "3 biggest". */
  n: number | null
  groupBy: 'category' | 'payee' | 'tag' | 'account' | null
  /** Words that name time but no period was read from them ("in the summer"). */
  timeUnread: boolean
  /** Words the corpus never used and that name nothing in the household. */
  unknownWords: string[]
  /** Of those, the ones that are not a typo of a corpus word either: the question is about something else. */
  strangeWords: string[]
}

const KIND_TOKEN = {
  category: SLOT_TOKENS.category,
  payee: SLOT_TOKENS.payee,
  account: SLOT_TOKENS.account,
  tag: SLOT_TOKENS.tag,
} as const

/** Words no answer depends on, so a question may carry them without being declined. */
const FILLER = new Set(
  'a an the i we me us my our you your it its is are was were be been do does did to of in on at for and or so just please pls thanks thank really actually like um uh hey hi ok okay yo'.split(
    ' ',
  ),
)

function groupByOf(masked: string): Understanding['groupBy'] {
  if (
    /\b(?:by|per|each|which|what|top|biggest|largest|rank)\b.*\b(?:payees?|stores?|merchants?|shops?|compan(?:y|ies)|places?|vendors?)\b|\bwho\b/.test(
      masked,
    )
  ) {
    return 'payee'
  }
  if (/\b(?:by|per)\s+tags?\b|\btags\b/.test(masked)) return 'tag'
  if (/\b(?:by|per)\s+accounts?\b/.test(masked)) return 'account'
  if (/\bcategor|\bcats?\b|\benvelopes?\b/.test(masked)) return 'category'
  return null
}

/**
 * Reads a question: periods first (chrono and the household's own phrasings), then amounts, then
 * the household's names (fuzzy, with aliases), each masked to a token, then the intent from the
 * masked words. Pure: the names and the classifier come in.
 */
export function understand(
  message: string,
  today: string,
  names: NameIndex,
  classifier: IntentClassifier,
): Understanding {
  const lower = message.toLowerCase().replace(/[\u2018\u2019]/g, "'")
  const { masked: withPeriods, periods } = maskPeriods(lower, today, SLOT_TOKENS.period)
  let masked = withPeriods
  const n =
    /\b(?:top|the)\s+(\d{1,2})\b|\b(\d{1,2})\s+(?:biggest|largest|most|highest|priciest)\b|\bnext\s+(\d{1,3})\s+days\b/.exec(
      masked,
    )
  const amountText = masked.replace(
    /\b(?:top|the)\s+\d{1,2}\b|\b\d{1,2}\s+(?:biggest|largest)\b|\b\d{1,3}\s+days\b/g,
    ' ',
  )
  const amountCents = parseAmountCents(amountText.replace(/\bx\w+x\b/g, ' '))
  masked = masked.replace(
    /(?:[$€£]\s?)?\b\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?\b|(?:[$€£]\s?)\d+(?:\.\d{1,2})?\b|\b\d+\.\d{1,2}\b|\b\d{2,}\b(?!\s*(?:days?|weeks?|months?))/g,
    (m) => (n && m === (n[1] ?? n[2] ?? n[3]) ? m : ` ${SLOT_TOKENS.amount} `),
  )
  let normalized = normalizePayeeName(masked)
  const mentions = names.find(normalized.replace(/\bx\w+x\b/g, ' | '))
  for (const m of mentions) {
    normalized = ` ${normalized} `.replace(` ${m.words} `, ` ${KIND_TOKEN[m.item.kind]} `).trim()
  }
  let ranked = classifier.rank(normalized)
  // Two periods are a comparison whatever else the question says about them.
  if (periods.length >= 2 && ranked.some((g) => g.intent === 'compare')) {
    ranked = [
      ...ranked.filter((g) => g.intent === 'compare'),
      ...ranked.filter((g) => g.intent !== 'compare'),
    ]
  }
  const top = ranked.find((g) => CUES[g.intent]?.test(normalized) ?? true)
  const unknownWords = normalized
    .split(' ')
    .filter((w) => w && !/^x\w+x$/.test(w) && !/^\d+$/.test(w) && !FILLER.has(w) && !classifier.knows(w))
  const strangeWords = unknownWords.filter((w) => !classifier.near(w))
  const confident = top && top.confidence >= CONFIDENCE
  // Words it has never seen say the question is about something it does not know: it is not
  // answered as another (a question about the weather tomorrow is not a forecast).
  const answerable =
    confident && (strangeWords.length === 0 || top.intent === 'outOfScope' || top.intent === 'help')
  const timeUnread =
    periods.length === 0 &&
    TIME_WORDS.test(
      normalized.replace(
        /\bx\w+x\b|\b(?:per|a|each|every|by)\s+(?:month|mo|year|yr|week)\b|\bmonthly\b/g,
        ' ',
      ),
    )
  return {
    intent: answerable ? top.intent : null,
    confidence: top?.confidence ?? 0,
    closest: ranked.slice(0, 3).map((g) => g.intent),
    masked: normalized,
    periods,
    mentions,
    amountCents,
    n: n ? Number(n[1] ?? n[2] ?? n[3]) : null,
    groupBy: groupByOf(normalized),
    timeUnread,
    unknownWords,
    strangeWords,
  }
}
