import { conflict } from '../../errors.ts'
import { defineMutator } from '../../mutator/define.ts'
import { IdArgsSchema } from '../fields.ts'
import {
  findNameHolder,
  findNameHolderOfNew,
  liveCategories,
  nextPosition,
  requireCategoryGroup,
} from '../lookups.ts'
import { toCategory, toCategoryGroup } from '../model.ts'
import { CreateCategoryGroupArgsSchema, UpdateCategoryGroupArgsSchema } from '../schema.ts'
import { retireCategories } from './retire-categories.ts'

function nameTaken(name: string, holderId: string) {
  return conflict('CATEGORY_GROUP_NAME_TAKEN', `A category group named "${name}" already exists.`, {
    categoryGroupId: holderId,
  })
}

/** Creates a category group; live group names are unique in a household, ignoring case. */
export const createCategoryGroup = defineMutator({
  audience: 'device',
  description: 'Creates a category group.',
  scope: 'write:categories',
  args: CreateCategoryGroupArgsSchema,
  async run(tx, args, ctx) {
    const holder = await findNameHolderOfNew(tx, 'category_groups', ctx.householdId, args.id, args.name)
    if (holder) throw nameTaken(args.name, holder)
    const row = await tx
      .insertInto('category_groups')
      .values({
        household_id: ctx.householdId,
        id: args.id,
        name: args.name,
        position: args.position ?? (await nextPosition(tx, 'category_groups', ctx.householdId)),
        hidden: args.hidden ?? false,
        is_income: args.isIncome ?? false,
        created_at: ctx.now,
        updated_at: ctx.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    const group = toCategoryGroup(row, [])
    ctx.emit('categoryGroup.created', { categoryGroup: group })
    return group
  },
})

/** Renames, moves, hides or re-kinds a live group; the name stays unique among live groups. */
export const updateCategoryGroup = defineMutator({
  audience: 'device',
  description: 'Renames, moves, hides or re-kinds a live group.',
  scope: 'write:categories',
  args: UpdateCategoryGroupArgsSchema,
  async run(tx, args, ctx) {
    const { id, ...patch } = args
    await requireCategoryGroup(tx, ctx.householdId, id)
    if (patch.name !== undefined) {
      const holder = await findNameHolder(tx, 'category_groups', ctx.householdId, patch.name, {
        excludeId: id,
      })
      if (holder) throw nameTaken(patch.name, holder)
    }
    const row = await tx
      .updateTable('category_groups')
      .set({
        ...(patch.name !== undefined && { name: patch.name }),
        ...(patch.position !== undefined && { position: patch.position }),
        ...(patch.hidden !== undefined && { hidden: patch.hidden }),
        ...(patch.isIncome !== undefined && { is_income: patch.isIncome }),
        updated_at: ctx.now,
      })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow()
    const categories = (await liveCategories(tx, ctx.householdId, [id])).map(toCategory)
    const group = toCategoryGroup(row, categories)
    ctx.emit('categoryGroup.updated', { categoryGroup: group, changes: Object.keys(patch) })
    return group
  },
})

/**
 * Soft-deletes a group together with its live categories, so no live category is left in a
 * deleted group; payees that defaulted to those categories lose the default.
 */
export const deleteCategoryGroup = defineMutator({
  audience: 'device',
  description:
    'Soft-deletes a group together with its live categories, so no live category is left in a deleted group.',
  scope: 'write:categories',
  args: IdArgsSchema,
  async run(tx, args, ctx) {
    await requireCategoryGroup(tx, ctx.householdId, args.id)
    const categoryIds = (await liveCategories(tx, ctx.householdId, [args.id])).map((c) => c.id)
    await retireCategories(tx, ctx, categoryIds)
    await tx
      .updateTable('category_groups')
      .set({ deleted_at: ctx.now, updated_at: ctx.now })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .execute()
    ctx.emit('categoryGroup.deleted', { id: args.id, categoryIds })
    return { id: args.id, categoryIds }
  },
})
