import { sql } from 'kysely'
import { NoArgsSchema } from '../catalog/fields.ts'
import { defineQuery } from '../mutator/define.ts'
import { requireRecurrence } from './lookups.ts'
import { type Recurrence, toRecurrence } from './model.ts'
import { RecurrenceIdArgsSchema } from './schema.ts'

/** Live recurrences, paused ones included: by next run (ended ones last), then name, then id. */
export const listRecurrences = defineQuery({
  audience: 'device',
  description: 'Live recurrences, paused ones included, by next run date, then name.',
  scope: 'read:recurrences',
  args: NoArgsSchema,
  async run(db, _args, ctx): Promise<{ items: Recurrence[] }> {
    const rows = await db
      .selectFrom('recurrences')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .where('deleted_at', 'is', null)
      .orderBy(sql`next_run_date asc nulls last`)
      .orderBy(sql`name collate "C"`)
      .orderBy(sql`id collate "C"`)
      .execute()
    return { items: rows.map(toRecurrence) }
  },
})

/** One live recurrence. */
export const getRecurrence = defineQuery({
  audience: 'device',
  description: 'One live recurrence.',
  scope: 'read:recurrences',
  args: RecurrenceIdArgsSchema,
  async run(db, args, ctx): Promise<Recurrence> {
    return toRecurrence(await requireRecurrence(db, ctx.householdId, args.id))
  },
})
