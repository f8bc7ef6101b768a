import type { OperationTree } from '../mutator/registry.ts'
import { deleteLoanTerms, setLoanTerms } from './mutators.ts'
import { loanProjection, loanSimulation, loanTermsHistoryQuery } from './queries.ts'

/** The loans domain's operations (issue 26): terms with a dated history, projection and what-ifs. */
export const loanOperations = {
  loans: {
    deleteTerms: deleteLoanTerms,
    projection: loanProjection,
    setTerms: setLoanTerms,
    simulation: loanSimulation,
    termsHistory: loanTermsHistoryQuery,
  },
} satisfies OperationTree
