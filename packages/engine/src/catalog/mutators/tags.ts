import { conflict } from '../../errors.ts'
import { defineMutator } from '../../mutator/define.ts'
import { IdArgsSchema } from '../fields.ts'
import { findNameHolder, findNameHolderOfNew, requireTag } from '../lookups.ts'
import { toTag } from '../model.ts'
import { CreateTagArgsSchema, UpdateTagArgsSchema } from '../schema.ts'

function nameTaken(name: string, holderId: string) {
  return conflict('TAG_NAME_TAKEN', `A tag named "${name}" already exists.`, { tagId: holderId })
}

/** Creates a tag; tag names are unique in a household, ignoring case. */
export const createTag = defineMutator({
  audience: 'device',
  description: 'Creates a tag.',
  scope: 'write:tags',
  args: CreateTagArgsSchema,
  async run(tx, args, ctx) {
    // The id and the name are both unique indexes, so the insert checks both in one statement
    // (one round trip, one call into PGlite); a refusal is explained afterwards, the id first.
    // The household's clock, taken before the body, keeps anyone from changing that in between.
    const row = await tx
      .insertInto('tags')
      .values({
        household_id: ctx.householdId,
        id: args.id,
        name: args.name,
        color: args.color ?? null,
        created_at: ctx.now,
        updated_at: ctx.now,
      })
      .onConflict((oc) => oc.doNothing())
      .returningAll()
      .executeTakeFirst()
    if (!row) {
      const holder = await findNameHolderOfNew(tx, 'tags', ctx.householdId, args.id, args.name)
      if (!holder) throw new Error(`tags.create was refused, yet neither ${args.id} nor its name is taken.`)
      throw nameTaken(args.name, holder)
    }
    const tag = toTag(row)
    ctx.emit('tag.created', { tag })
    return tag
  },
})

/** Renames or recolours a tag; the name stays unique in the household, ignoring case. */
export const updateTag = defineMutator({
  audience: 'device',
  description: 'Renames or recolours a tag.',
  scope: 'write:tags',
  args: UpdateTagArgsSchema,
  async run(tx, args, ctx) {
    const { id, ...patch } = args
    await requireTag(tx, ctx.householdId, id)
    if (patch.name !== undefined) {
      const holder = await findNameHolder(tx, 'tags', ctx.householdId, patch.name, { excludeId: id })
      if (holder) throw nameTaken(patch.name, holder)
    }
    const row = await tx
      .updateTable('tags')
      .set({
        ...(patch.name !== undefined && { name: patch.name }),
        ...(patch.color !== undefined && { color: patch.color }),
        updated_at: ctx.now,
      })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow()
    const tag = toTag(row)
    ctx.emit('tag.updated', { tag, changes: Object.keys(patch) })
    return tag
  },
})

/** Deletes a tag for good; the database removes its links to transactions with it. */
export const deleteTag = defineMutator({
  audience: 'device',
  description: 'Deletes a tag for good.',
  scope: 'write:tags',
  args: IdArgsSchema,
  async run(tx, args, ctx) {
    await requireTag(tx, ctx.householdId, args.id)
    await tx
      .deleteFrom('tags')
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .execute()
    ctx.emit('tag.deleted', { id: args.id })
    return { id: args.id }
  },
})
