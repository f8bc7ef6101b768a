import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../database.ts'
import { conflict, EngineError } from '../errors.ts'
import { requireAccount } from '../ledger/accounts/lookups.ts'
import type { AccountRow } from '../ledger/tables.ts'
import type { LoanTermsRow } from './tables.ts'

type Db = Kysely<Database> | Transaction<Database>

/** The live account, 404 when it is not the household's, 422 NOT_A_LOAN_ACCOUNT when no loan. */
export async function requireLoanAccount(db: Db, householdId: string, id: string): Promise<AccountRow> {
  const account = await requireAccount(db, householdId, id)
  if (account.type !== 'loan') {
    throw new EngineError(
      422,
      'NOT_A_LOAN_ACCOUNT',
      `Account ${id} is a ${account.type} account; loan terms, projections and simulations are for loan accounts only.`,
      { extra: { accountType: account.type } },
    )
  }
  return account
}

/** Every terms row of the account, newest effective date first. */
export async function loanTermsHistory(
  db: Db,
  householdId: string,
  accountId: string,
): Promise<LoanTermsRow[]> {
  return db
    .selectFrom('loan_terms')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('account_id', '=', accountId)
    .orderBy('effective_date', 'desc')
    .execute()
}

/**
 * The terms in force on `day`: the newest effective on or before it, else (a loan that starts
 * later) the earliest. 409 LOAN_TERMS_NOT_SET when the account has none.
 */
export function termsInForce(history: readonly LoanTermsRow[], day: string): LoanTermsRow {
  const row = history.find((t) => t.effective_date <= day) ?? history.at(-1)
  if (!row) {
    throw conflict(
      'LOAN_TERMS_NOT_SET',
      'This loan account has no terms yet; set them with PUT …/accounts/{accountId}/loan-terms.',
    )
  }
  return row
}
