/** Accounts, transactions and what hangs off them. */
// biome-ignore lint/complexity/noBannedTypes: filled in by the ledger migration
export type LedgerTables = {}
