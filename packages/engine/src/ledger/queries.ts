/** Every ledger query, keyed for the registry. */
export { accountBalanceHistory, getAccount, listAccounts } from './accounts/queries.ts'
export { getTransaction } from './transactions/queries.ts'
