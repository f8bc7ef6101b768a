/** Every ledger query, keyed for the registry. */
export { accountBalanceHistory, getAccount, listAccounts } from './accounts/queries.ts'
export { listExchangeRates } from './exchange-rates/queries.ts'
export { matchCandidates, transferCandidates } from './transactions/candidates.ts'
export { listTransactions } from './transactions/list.ts'
export { getTransaction } from './transactions/queries.ts'
export { dailySummary, stalePendingCount } from './transactions/summary.ts'
