import { budgetOverrunStep } from './budgets/overrun.ts'
import { defaultFlagsSeeder } from './catalog/seed-default-flags.ts'
import type { IdentityHooks } from './identity/household-seeders.ts'
import type { LedgerHooks } from './ledger/transactions/pipeline.ts'
import { payeeAliasStep } from './payees/alias-step.ts'
import { categorySuggestionStep } from './payees/suggestion-step.ts'
import { learnCategoriesStep } from './rules/learn.ts'
import { applyRulesStep } from './rules/pipeline-step.ts'

/** Every point where a domain plugs into a domain below it. */
export type EngineHooks = IdentityHooks & LedgerHooks

/**
 * What each domain plugs into the foundation domains, in the order it runs. This is the one
 * place hooks are wired: foundation domains (identity, ledger) take them as arguments and
 * import no feature domain, and since the server and the client SDK both build their registry
 * from this module, every replica runs the same hooks in the same order.
 */
export const engineHooks: EngineHooks = Object.freeze({
  householdSeeders: Object.freeze([defaultFlagsSeeder]),
  // Rules run after any step that settles the payee (aliases), so they see the final payee;
  // learning looks at the categories the write left; the budget overrun check runs last, once
  // every step has settled the categories.
  transactionPipeline: Object.freeze([
    payeeAliasStep,
    applyRulesStep,
    categorySuggestionStep,
    learnCategoriesStep,
    budgetOverrunStep,
  ]),
})
