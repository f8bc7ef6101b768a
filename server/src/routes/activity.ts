import { ActivityListSchema, UndoResultSchema } from '@hearth/contracts'
import { operations } from '@hearth/engine'
import { operationRoute } from '../http/operation-route.ts'

const tag = 'Activity'
const activity = '/households/{householdId}/activity'

/** The household's activity and undo (docs/api/activity.md). */
export const activityRoutes = [
  operationRoute(operations.activity.list, {
    method: 'get',
    path: activity,
    status: 200,
    tag,
    response: ActivityListSchema,
    responseDescription: 'A page of entries, newest first.',
    notes:
      'Each entry is shown only to a caller who may read every kind of row it changed and the read counterpart of its operation’s scope. `transactionId` gives one transaction’s history; `categoryId` with `month` one budget cell’s.',
    errors: { 400: ['INVALID_CURSOR'] },
  }),
  operationRoute(operations.activity.undo, {
    method: 'post',
    path: `${activity}/undo`,
    status: 200,
    tag,
    response: UndoResultSchema,
    responseDescription: 'What was undone, and the undo’s own entry.',
    notes:
      'Without `entryId`, your own newest change that is not an undo and was not undone. Members undo their own entries, owners anyone’s. Refused when a later entry changed one of the same rows.',
    errors: {
      403: ['NOT_YOUR_CHANGE'],
      404: ['NOT_FOUND'],
      409: ['UNDO_CONFLICT', 'NOTHING_TO_UNDO', 'NOT_UNDOABLE'],
    },
  }),
]
