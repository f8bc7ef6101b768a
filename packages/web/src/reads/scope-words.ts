/** What each read scope lets a person see, in a household's words. */
const SEEN_WITH: Record<string, string> = {
  'read:accounts': 'your accounts and their balances',
  'read:transactions': 'your transactions',
  'read:budgets': 'the budget',
  'read:categories': 'your categories',
  'read:payees': 'your payees',
  'read:rules': 'your rules',
  'read:tags': 'your tags',
  'read:households': 'the household’s members',
  'read:recurrences': 'repeating transactions',
  'read:forecasting': 'forecasts',
  'read:insights': 'insights',
  'read:notifications': 'notifications',
  'read:webhooks': 'webhooks',
  'read:profile': 'your profile',
}

/** "your payees" for `read:payees`; a scope not listed here is named as it is. */
export function scopeWords(scope: string): string {
  return SEEN_WITH[scope] ?? `what ${scope} covers`
}
