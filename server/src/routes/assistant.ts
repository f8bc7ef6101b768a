import { operations } from '@hearth/engine'
import { operationRoute } from '../http/operation-route.ts'

const tag = 'Assistant'
const ai = '/households/{householdId}/ai'

/** The assistant's table-driven routes: consent, conversations, actions and tools. */
export const assistantRoutes = [
  operationRoute(operations.aiConsent.get, {
    method: 'get',
    path: `${ai}/consent`,
    status: 200,
    tag,
    notes: 'See docs/api/assistant.md, Consent.',
  }),
  operationRoute(operations.aiConsent.grant, {
    method: 'post',
    path: `${ai}/consent`,
    status: 200,
    tag,
    optionalBody: true,
    notes:
      'Idempotent: granting again keeps the first date. Covers what docs/api/assistant.md, Consent, lists.',
  }),
  operationRoute(operations.aiConsent.withdraw, {
    method: 'delete',
    path: `${ai}/consent`,
    status: 200,
    tag,
    notes: 'Chat answers 403 `AI_CONSENT_REQUIRED` from the next request on.',
  }),
  operationRoute(operations.aiConversations.list, {
    method: 'get',
    path: `${ai}/conversations`,
    status: 200,
    tag,
    notes: 'Cursor-paginated by updatedAt, most recent first. Members see their own; owners see all.',
    errors: { 400: ['INVALID_CURSOR'] },
  }),
  operationRoute(operations.aiConversations.bulkDelete, {
    method: 'post',
    path: `${ai}/conversations/bulk-delete`,
    status: 200,
    tag,
    notes: 'Only your own conversations: `{"ids": [...]}` or `{"all": true}`.',
  }),
  operationRoute(operations.aiConversations.get, {
    method: 'get',
    path: `${ai}/conversations/{id}`,
    status: 200,
    tag,
    notes: 'Its creator and household owners only; anyone else gets 404.',
  }),
  operationRoute(operations.aiConversations.rename, {
    method: 'patch',
    path: `${ai}/conversations/{id}`,
    status: 200,
    tag,
  }),
  operationRoute(operations.aiConversations.delete, {
    method: 'delete',
    path: `${ai}/conversations/{id}`,
    status: 204,
    tag,
  }),
  operationRoute(operations.aiConversations.stop, {
    method: 'post',
    path: `${ai}/conversations/{id}/stop`,
    status: 200,
    tag,
    optionalBody: true,
    notes: 'A stopped conversation answers chat with 409 `CONVERSATION_STOPPED`.',
  }),
  operationRoute(operations.aiActions.list, {
    method: 'get',
    path: `${ai}/actions`,
    status: 200,
    tag,
    notes: 'Your pending, unexpired actions, oldest first; opaque cursor.',
    errors: { 400: ['INVALID_CURSOR'] },
  }),
  operationRoute(operations.aiActions.confirm, {
    method: 'post',
    path: `${ai}/actions/{id}/confirm`,
    status: 200,
    tag,
    optionalBody: true,
    notes:
      'Runs the operation once with your scopes and role now. 409 `ACTION_EXPIRED` (after one hour) or `ACTION_NOT_PENDING`; the operation’s own refusals leave the action pending.',
    errors: { 409: ['ACTION_EXPIRED', 'ACTION_NOT_PENDING'] },
  }),
  operationRoute(operations.aiActions.cancel, {
    method: 'post',
    path: `${ai}/actions/{id}/cancel`,
    status: 200,
    tag,
    optionalBody: true,
    errors: { 409: ['ACTION_EXPIRED', 'ACTION_NOT_PENDING'] },
  }),
  operationRoute(operations.aiTools.list, { method: 'get', path: `${ai}/tools`, status: 200, tag }),
  operationRoute(operations.aiInsights.list, {
    method: 'get',
    path: `${ai}/insights`,
    status: 200,
    tag,
    notes:
      'Newest first; undismissed only unless includeDismissed=true; filter by kind and periodStart (YYYY-MM-DD).',
    errors: { 400: ['INVALID_CURSOR'] },
  }),
  operationRoute(operations.aiInsights.dismiss, {
    method: 'post',
    path: `${ai}/insights/{insightId}/dismiss`,
    status: 200,
    tag,
    optionalBody: true,
    notes: 'Idempotent: dismissing again answers the insight unchanged.',
  }),
]
