import { budgetOperations } from './budgets/operations.ts'
import { catalogOperations } from './catalog/operations.ts'
import { engineHooks } from './hooks.ts'
import { identityOperations } from './identity/operations.ts'
import { ledgerOperations } from './ledger/operations.ts'
import { createRegistry } from './mutator/registry.ts'
import { notificationOperations } from './notifications/operations.ts'
import { payeeOperations } from './payees/operations.ts'
import { ruleOperations } from './rules/operations.ts'
import { webhookOperations } from './webhooks/operations.ts'

/**
 * Every operation of the engine by its path (`operations.tags.create`), and by its name in
 * `operations.byName`. The SDK, the sync wire, REST routes, rejections, OpenAPI operationIds
 * and AI tools all use these names.
 */
export const operations = createRegistry(
  identityOperations(engineHooks),
  catalogOperations,
  ledgerOperations(engineHooks),
  budgetOperations,
  ruleOperations,
  payeeOperations,
  webhookOperations,
  notificationOperations,
)

/** The registry's shape. */
export type Operations = typeof operations
