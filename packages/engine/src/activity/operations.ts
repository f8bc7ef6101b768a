import type { OperationTree } from '../mutator/registry.ts'
import { listActivity } from './queries.ts'
import { undoActivity, undoMutation } from './undo.ts'

/** The activity domain's operations (issue 43): who changed what, and taking a change back. */
export const activityOperations = {
  activity: {
    list: listActivity,
    undo: undoActivity,
    undoMutation,
  },
} satisfies OperationTree
