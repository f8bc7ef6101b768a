import { conflict } from '../../errors.ts'
import { defineMutator } from '../../mutator/define.ts'
import { IdArgsSchema } from '../fields.ts'
import { findNameHolder, findNameHolderOfNew, nextPosition, requireFlag } from '../lookups.ts'
import { toFlag } from '../model.ts'
import { CreateFlagArgsSchema, UpdateFlagArgsSchema } from '../schema.ts'

// Flags have no scope of their own in the contract; they mark transactions, so they use the
// transaction scopes.

function nameTaken(name: string, holderId: string) {
  return conflict('FLAG_NAME_TAKEN', `A flag named "${name}" already exists.`, { flagId: holderId })
}

/** Creates a flag; flag names are unique in a household, ignoring case. */
export const createFlag = defineMutator({
  audience: 'device',
  description: 'Creates a flag.',
  scope: 'write:transactions',
  args: CreateFlagArgsSchema,
  async run(tx, args, ctx) {
    const holder = await findNameHolderOfNew(tx, 'flags', ctx.householdId, args.id, args.name)
    if (holder) throw nameTaken(args.name, holder)
    const row = await tx
      .insertInto('flags')
      .values({
        household_id: ctx.householdId,
        id: args.id,
        name: args.name,
        color: args.color,
        position: args.position ?? (await nextPosition(tx, 'flags', ctx.householdId)),
        created_at: ctx.now,
        updated_at: ctx.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    const flag = toFlag(row)
    ctx.emit('flag.created', { flag })
    return flag
  },
})

/** Renames, recolours or repositions a flag; the name stays unique in the household, ignoring case. */
export const updateFlag = defineMutator({
  audience: 'device',
  description: 'Renames, recolours or repositions a flag.',
  scope: 'write:transactions',
  args: UpdateFlagArgsSchema,
  async run(tx, args, ctx) {
    const { id, ...patch } = args
    await requireFlag(tx, ctx.householdId, id)
    if (patch.name !== undefined) {
      const holder = await findNameHolder(tx, 'flags', ctx.householdId, patch.name, { excludeId: id })
      if (holder) throw nameTaken(patch.name, holder)
    }
    const row = await tx
      .updateTable('flags')
      .set({
        ...(patch.name !== undefined && { name: patch.name }),
        ...(patch.color !== undefined && { color: patch.color }),
        ...(patch.position !== undefined && { position: patch.position }),
        updated_at: ctx.now,
      })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow()
    const flag = toFlag(row)
    ctx.emit('flag.updated', { flag, changes: Object.keys(patch) })
    return flag
  },
})

/** Deletes a flag for good; the database removes it from every transaction that carried it. */
export const deleteFlag = defineMutator({
  audience: 'device',
  description: 'Deletes a flag for good.',
  scope: 'write:transactions',
  args: IdArgsSchema,
  async run(tx, args, ctx) {
    await requireFlag(tx, ctx.householdId, args.id)
    await tx
      .deleteFrom('flags')
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .execute()
    ctx.emit('flag.deleted', { id: args.id })
    return { id: args.id }
  },
})
