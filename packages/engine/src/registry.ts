import { activityOperations } from './activity/operations.ts'
import { assistantOperations } from './assistant/operations.ts'
import { bankOperations } from './banks/operations.ts'
import { budgetOperations } from './budgets/operations.ts'
import { catalogOperations } from './catalog/operations.ts'
import { forecastOperations } from './forecasts/operations.ts'
import { engineHooks } from './hooks.ts'
import { identityOperations } from './identity/operations.ts'
import { importOperations } from './imports/operations.ts'
import { ledgerOperations } from './ledger/operations.ts'
import { loanOperations } from './loans/operations.ts'
import type { Operation } from './mutator/define.ts'
import { createRegistry } from './mutator/registry.ts'
import { notificationOperations } from './notifications/operations.ts'
import { payeeOperations } from './payees/operations.ts'
import { recurrenceOperations } from './recurrences/operations.ts'
import { reportOperations } from './reports/operations.ts'
import { ruleOperations } from './rules/operations.ts'
import { signInOperations } from './sign-in/operations.ts'
import { webhookOperations } from './webhooks/operations.ts'

/**
 * Every operation of the engine by its path (`operations.tags.create`), and by its name in
 * `operations.byName`. The SDK, the sync wire, REST routes, rejections, OpenAPI operationIds
 * and AI tools all use these names.
 */
export const operations = createRegistry(
  identityOperations(engineHooks),
  signInOperations,
  catalogOperations,
  ledgerOperations(engineHooks),
  budgetOperations,
  ruleOperations,
  payeeOperations,
  loanOperations,
  recurrenceOperations(engineHooks),
  forecastOperations,
  // The assistant reads the registry itself (tools, confirmed actions), once it is built.
  assistantOperations(() => joined),
  importOperations(engineHooks),
  bankOperations(engineHooks),
  webhookOperations,
  notificationOperations,
  reportOperations,
  activityOperations,
)
const joined: ReadonlyMap<string, Operation> = operations.byName

/** The registry's shape. */
export type Operations = typeof operations
