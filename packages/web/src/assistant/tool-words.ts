/** What a read tool looks at, in a household's words; another tool is named as it is. */
const READS: Record<string, string> = {
  reports_spending: 'the spending report',
  reports_largestTransactions: 'the largest transactions',
  accounts_list: 'the accounts and their balances',
  budgets_get: 'the budget',
  recurrences_upcoming: 'the upcoming bills',
  recurrences_list: 'the recurring payments',
  loans_projection: 'the loan’s schedule',
  forecasts_get: 'the month’s forecast',
  budgets_move: 'a budget move to propose',
  transactions_bulkUpdate: 'the transactions to change',
  rules_create: 'a rule to propose',
}

/** "Read the spending report", or the tool's own name. */
export function toolWords(name: string): string {
  return READS[name] ?? name
}
