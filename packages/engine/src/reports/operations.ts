import { largestTransactions, spendingReport } from '../assistant/reports.ts'
import type { OperationTree } from '../mutator/registry.ts'
import { ageOfMoneyReport, cashFlowReport, netWorthReport } from './queries.ts'

/**
 * The reports domain (issue 30): registry queries the web app's charts, REST, the SDK and the
 * assistant all read. `spending` and `largestTransactions` came with the assistant (issue 29).
 */
export const reportOperations = {
  reports: {
    ageOfMoney: ageOfMoneyReport,
    cashFlow: cashFlowReport,
    largestTransactions,
    netWorth: netWorthReport,
    spending: spendingReport,
  },
} satisfies OperationTree
