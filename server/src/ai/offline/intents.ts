/** What the offline assistant understood a message to ask. */
export type Intent =
  | 'help'
  | 'move'
  | 'categorize'
  | 'createRule'
  | 'upcoming'
  | 'largest'
  | 'changes'
  | 'netWorth'
  | 'budget'
  | 'balances'
  | 'income'
  | 'spending'
  | 'unknown'

const PATTERNS: [Intent, RegExp][] = [
  ['help', /^\s*(help|\?|what can you do|what do you know|how do (i|you) use)/],
  ['move', /\b(move|shift|transfer|reallocate)\b.*\bfrom\b.*\b(to|into)\b/],
  ['createRule', /\b(create|make|add|set ?up|new)\b.*\brule\b/],
  ['categorize', /\b(re)?categori[sz]e\b|\b(mark|file|put|label)\b.*\b(every|all)\b.*\b(as|under|in|into)\b/],
  [
    'upcoming',
    /\b(upcoming|coming up|due soon|bills? (due|coming)|next bills?|recurring|forecast|what'?s coming)\b/,
  ],
  [
    'largest',
    /\b(largest|biggest|top|most expensive|highest|priciest|big)\b.*\b(transactions?|purchases?|expenses?|charges?|payments?|spend(ing)?|buys?)\b/,
  ],
  [
    'changes',
    /\b(what|how).*\bchanged?\b|\bcompare[ds]?\b|\bcompared to\b|\bvs\.?\b|\bversus\b|\bdifference\b/,
  ],
  ['netWorth', /\bnet ?worth\b|\bworth\b|\bwhat do (i|we) own\b/],
  [
    'budget',
    /\bbudget(ed|s)?\b|\b(left|remaining|available)\b|\bover ?spent\b|\boverspending\b|\bready to assign\b/,
  ],
  [
    'balances',
    /\bbalances?\b|\baccounts?\b|\bhow much (money )?(do|have) (i|we) (have|got)\b|\bin the bank\b/,
  ],
  ['income', /\b(earn(ed)?|income|salary|paid me|made|received|came in)\b/],
  ['spending', /\b(spen[dt]|spending|cost|costs|pay|paid|expenses?|outflow|went (to|on)|blow|blew|on)\b/],
]

/** The first documented intent whose words the message uses (docs/api/assistant.md). */
export function intentOf(message: string): Intent {
  const t = message.toLowerCase()
  for (const [intent, pattern] of PATTERNS) if (pattern.test(t)) return intent
  return 'unknown'
}
