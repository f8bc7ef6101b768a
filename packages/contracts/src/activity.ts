import { z } from 'zod'

const FieldChange = z
  .object({
    field: z.string().describe('The field as the API names it (`amountCents`).'),
    before: z.unknown().describe('Its value before (amounts as cent strings); null for a new row.'),
    after: z.unknown().describe('Its value after; null for a row deleted for good.'),
    text: z
      .string()
      .describe('The change in words, amounts in the household currency (`amountCents -$12.00 → -$15.50`).'),
  })
  .meta({ id: 'ActivityFieldChange' })

const ResourceChange = z
  .object({
    resource: z.string().describe('What the row is (`transaction`, `budget cell`, `split`).'),
    table: z.string(),
    id: z.string(),
    action: z.enum(['created', 'updated', 'deleted', 'restored']),
    fields: z.array(FieldChange),
  })
  .meta({ id: 'ActivityChange' })

/** One activity entry: a committed operation, who did it, and each row it changed. */
export const ActivityEntrySchema = z
  .object({
    id: z.string(),
    version: z
      .number()
      .int()
      .describe('The household version it committed at; later entries have higher ones.'),
    occurredAt: z.string().describe('ISO 8601 instant in UTC.'),
    operation: z.string().describe('The operation, by its registry name (`budgets.move`).'),
    memberId: z.string().describe('The member it acted for (`system` for a job).'),
    actor: z.object({
      kind: z.enum(['key', 'session', 'device', 'job', 'assistant', 'cli', 'member']),
      label: z.string().describe('Who, in words: `Ana with the key "Budget script"`, `Ana\'s phone`.'),
    }),
    summary: z.string(),
    changes: z.array(ResourceChange),
    undoesEntryId: z.string().nullable().describe('The entry this undo (or redo) took back.'),
    undoneByEntryId: z.string().nullable().describe('The undo that took this entry back.'),
  })
  .meta({ id: 'ActivityEntry' })

export const ActivityListSchema = z
  .object({ items: z.array(ActivityEntrySchema), nextCursor: z.string().nullable() })
  .meta({ id: 'ActivityList' })

/** What an undo answers. */
export const UndoResultSchema = z
  .object({
    entryId: z.string().describe("The undo's own entry: undo it to redo."),
    undoneEntryId: z.string(),
    undoneOperation: z.string(),
    rowsRestored: z.number().int(),
  })
  .meta({ id: 'UndoResult' })
