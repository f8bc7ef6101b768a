import { defineQuery } from '../mutator/define.ts'
import type { OperationTree } from '../mutator/registry.ts'
import { cancelAction, defineConfirmAction, defineProposeAction, listActions } from './actions.ts'
import { getAiConsent, grantAiConsent, withdrawAiConsent } from './consent.ts'
import {
  bulkDeleteConversations,
  deleteConversation,
  getConversation,
  listConversations,
  renameConversation,
  stopConversation,
} from './conversations.ts'
import { dismissInsight, listInsights } from './insights.ts'
import { NoArgsSchema } from './schema.ts'
import { type OperationLookup, toolsFor } from './tools.ts'

/**
 * The assistant domain's operations (issue 29). `lookup` reads the joined registry when an
 * action is proposed or confirmed and when tools are listed, so this domain imports no registry.
 */
export function assistantOperations(lookup: OperationLookup) {
  return {
    aiActions: {
      cancel: cancelAction,
      confirm: defineConfirmAction(lookup),
      list: listActions,
      propose: defineProposeAction(lookup),
    },
    aiConsent: {
      get: getAiConsent,
      grant: grantAiConsent,
      withdraw: withdrawAiConsent,
    },
    aiConversations: {
      bulkDelete: bulkDeleteConversations,
      delete: deleteConversation,
      get: getConversation,
      list: listConversations,
      rename: renameConversation,
      stop: stopConversation,
    },
    aiInsights: {
      dismiss: dismissInsight,
      list: listInsights,
    },
    aiTools: {
      list: defineQuery({
        audience: 'server',
        description: "The assistant's tools for your role and this key's scopes: their count and names.",
        scope: 'ai:tools',
        args: NoArgsSchema,
        async run(_db, _args, ctx) {
          const tools = toolsFor(ctx, lookup)
          return {
            count: tools.length,
            names: tools.map((t) => t.name),
            tools: tools.map(({ name, operation, description, kind }) => ({
              name,
              operation,
              description,
              kind,
            })),
          }
        },
      }),
    },
  } satisfies OperationTree
}
