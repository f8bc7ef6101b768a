import { RuleApplicationListSchema, RuleListSchema, RuleRunResultSchema, RuleSchema } from '@hearth/contracts'
import { operations } from '@hearth/engine'
import { type OperationRoute, operationRoute } from '../http/operation-route.ts'

const tag = 'Rules'
const rules = '/households/{householdId}/rules'
const refs = { 404: ['NOT_FOUND'] } as const

/** Rule CRUD, back-fills and the record of what rules changed. */
export const ruleRoutes: OperationRoute[] = [
  operationRoute(operations.rules.create, {
    method: 'post',
    path: rules,
    status: 201,
    tag,
    clientIds: ['id'],
    response: RuleSchema,
    responseDescription: 'The new rule.',
    notes:
      'A malformed predicate, an unknown field or an operator the field does not take is a 400 naming the path ' +
      '(`predicate.conditions.0.op`); a `matches` pattern RE2 cannot run is refused the same way. A category, payee, ' +
      'tag or flag the action names must exist (404 naming `action.setCategoryId` and so on). See docs/rules.md.',
    errors: { ...refs, 409: ['ID_ALREADY_EXISTS'] },
  }),
  operationRoute(operations.rules.list, {
    method: 'get',
    path: rules,
    status: 200,
    tag,
    response: RuleListSchema,
    responseDescription: 'The live rules.',
    notes: 'In the order they run: priority, then created_at, then id.',
  }),
  operationRoute(operations.rules.applyAll, {
    method: 'post',
    path: `${rules}/apply-all`,
    status: 200,
    tag,
    optionalBody: true,
    response: RuleRunResultSchema,
    responseDescription: 'What the rules changed.',
    notes:
      'Every enabled rule over every live, unreconciled row, in priority order; per row and field the first matching ' +
      'rule wins, tags and flags add up, stopProcessing ends the row. Recorded as trigger manual.',
  }),
  operationRoute(operations.rules.get, {
    method: 'get',
    path: `${rules}/{ruleId}`,
    status: 200,
    tag,
    response: RuleSchema,
    responseDescription: 'The rule.',
    errors: refs,
  }),
  operationRoute(operations.rules.update, {
    method: 'patch',
    path: `${rules}/{ruleId}`,
    status: 200,
    tag,
    response: RuleSchema,
    responseDescription: 'The updated rule.',
    notes:
      'Partial: name, priority, enabled, predicate, action (each replaced whole). Rows already changed stay.',
    errors: refs,
  }),
  operationRoute(operations.rules.delete, {
    method: 'delete',
    path: `${rules}/{ruleId}`,
    status: 204,
    tag,
    notes: 'Soft delete: the rule stops running; the record of what it changed stays.',
    errors: refs,
  }),
  operationRoute(operations.rules.apply, {
    method: 'post',
    path: `${rules}/{ruleId}/apply`,
    status: 200,
    tag,
    optionalBody: true,
    response: RuleRunResultSchema,
    responseDescription: 'What the rule changed.',
    notes:
      'Back-fills this rule (enabled or not) over every live, unreconciled row, replacing the fields it sets. ' +
      'Recorded as trigger manual. The answer equals what preview said just before.',
    errors: refs,
  }),
  operationRoute(operations.rules.preview, {
    method: 'post',
    path: `${rules}/{ruleId}/preview`,
    status: 200,
    tag,
    optionalBody: true,
    response: RuleRunResultSchema,
    responseDescription: 'What apply would change.',
    notes: 'A dry run: changes nothing.',
    errors: refs,
  }),
  operationRoute(operations.rules.applications, {
    method: 'get',
    path: '/households/{householdId}/rule-applications',
    status: 200,
    tag,
    response: RuleApplicationListSchema,
    responseDescription: 'Which rule changed which fields of which row.',
    notes:
      'Why a row looks as it does: filter by `transactionId` or `ruleId` (or both). Newest first, at most 500.',
  }),
]
