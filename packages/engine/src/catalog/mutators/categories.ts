import { sql } from 'kysely'
import { conflict, type FieldError, invalid } from '../../errors.ts'
import { defineMutator } from '../../mutator/define.ts'
import { IdArgsSchema } from '../fields.ts'
import {
  findNameHolder,
  findNameHolderOfNew,
  nextPosition,
  requireCategory,
  requireCategoryGroup,
} from '../lookups.ts'
import { toCategory } from '../model.ts'
import { CreateCategoryArgsSchema, ReorderCategoriesArgsSchema, UpdateCategoryArgsSchema } from '../schema.ts'
import { retireCategories } from './retire-categories.ts'

function nameTaken(name: string, holderId: string) {
  return conflict('CATEGORY_NAME_TAKEN', `The group already has a category named "${name}".`, {
    categoryId: holderId,
  })
}

/** Creates a category in a live group of the household; names are unique within a group, ignoring case. */
export const createCategory = defineMutator({
  audience: 'device',
  description: 'Creates a category in a live group of the household.',
  scope: 'write:categories',
  args: CreateCategoryArgsSchema,
  async run(tx, args, ctx) {
    await requireCategoryGroup(tx, ctx.householdId, args.groupId)
    const holder = await findNameHolderOfNew(tx, 'categories', ctx.householdId, args.id, args.name, {
      groupId: args.groupId,
    })
    if (holder) throw nameTaken(args.name, holder)
    const row = await tx
      .insertInto('categories')
      .values({
        household_id: ctx.householdId,
        id: args.id,
        group_id: args.groupId,
        name: args.name,
        position: args.position ?? (await nextPosition(tx, 'categories', ctx.householdId, args.groupId)),
        hidden: args.hidden ?? false,
        goal: args.goal ? JSON.stringify(args.goal) : null,
        carry_overspending: args.carryOverspending ?? false,
        created_at: ctx.now,
        updated_at: ctx.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    const category = toCategory(row)
    ctx.emit('category.created', { category })
    return category
  },
})

/**
 * Renames, hides, repositions or moves a live category to another live group; a move without
 * a position places it last in its new group, and the name stays unique in the group it ends in.
 */
export const updateCategory = defineMutator({
  audience: 'device',
  description: 'Renames, hides, repositions or moves a live category to another live group.',
  scope: 'write:categories',
  args: UpdateCategoryArgsSchema,
  async run(tx, args, ctx) {
    const { id, ...patch } = args
    const current = await requireCategory(tx, ctx.householdId, id)
    const moving = patch.groupId !== undefined && patch.groupId !== current.group_id
    if (moving) await requireCategoryGroup(tx, ctx.householdId, patch.groupId as string)
    const groupId = patch.groupId ?? current.group_id
    if (patch.name !== undefined || moving) {
      const name = patch.name ?? current.name
      const holder = await findNameHolder(tx, 'categories', ctx.householdId, name, { groupId, excludeId: id })
      if (holder) throw nameTaken(name, holder)
    }
    const position =
      patch.position ?? (moving ? await nextPosition(tx, 'categories', ctx.householdId, groupId) : undefined)
    const row = await tx
      .updateTable('categories')
      .set({
        ...(patch.name !== undefined && { name: patch.name }),
        ...(patch.hidden !== undefined && { hidden: patch.hidden }),
        ...(patch.goal !== undefined && { goal: patch.goal ? JSON.stringify(patch.goal) : null }),
        ...(patch.carryOverspending !== undefined && { carry_overspending: patch.carryOverspending }),
        ...(position !== undefined && { position }),
        group_id: groupId,
        updated_at: ctx.now,
      })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow()
    const category = toCategory(row)
    ctx.emit('category.updated', { category, changes: Object.keys(patch) })
    return category
  },
})

/** Soft-deletes a live category and clears payee defaults that point at it; transactions keep it. */
export const deleteCategory = defineMutator({
  audience: 'device',
  description: 'Soft-deletes a live category and clears payee defaults that point at it.',
  scope: 'write:categories',
  args: IdArgsSchema,
  async run(tx, args, ctx) {
    await requireCategory(tx, ctx.householdId, args.id)
    await retireCategories(tx, ctx, [args.id])
    return { id: args.id }
  },
})

/**
 * Sets the group and position of many categories in one step: every id must be a distinct
 * live category and every group a live group, or nothing changes. Categories not listed
 * keep their place; names stay unique within each group.
 */
export const reorderCategories = defineMutator({
  audience: 'device',
  description:
    'Sets the group and position of many categories in one step: every id must be a distinct live category and every group a live group, or nothing changes.',
  scope: 'write:categories',
  args: ReorderCategoriesArgsSchema,
  async run(tx, args, ctx) {
    const { items } = args
    const seen = new Set<string>()
    const repeated: FieldError[] = []
    items.forEach((item, i) => {
      if (seen.has(item.id))
        repeated.push({ path: `items.${i}.id`, message: `Category ${item.id} is listed twice.` })
      seen.add(item.id)
    })
    if (repeated.length > 0) throw invalid('REORDER_DUPLICATE_ID', 'Each category may appear once.', repeated)

    const ids = items.map((item) => item.id)
    const groupIds = [...new Set(items.flatMap((item) => (item.groupId ? [item.groupId] : [])))]
    const categories = await tx
      .selectFrom('categories')
      .select(['id', 'group_id'])
      .where('household_id', '=', ctx.householdId)
      .where('id', 'in', ids)
      .where('deleted_at', 'is', null)
      .execute()
    const groups =
      groupIds.length === 0
        ? []
        : await tx
            .selectFrom('category_groups')
            .select('id')
            .where('household_id', '=', ctx.householdId)
            .where('id', 'in', groupIds)
            .where('deleted_at', 'is', null)
            .execute()
    const currentGroup = new Map(categories.map((c) => [c.id, c.group_id]))
    const liveGroups = new Set(groups.map((g) => g.id))
    const unknown: FieldError[] = []
    items.forEach((item, i) => {
      if (!currentGroup.has(item.id))
        unknown.push({ path: `items.${i}.id`, message: `Category ${item.id} was not found.` })
      if (item.groupId && !liveGroups.has(item.groupId)) {
        unknown.push({ path: `items.${i}.groupId`, message: `Category group ${item.groupId} was not found.` })
      }
    })
    if (unknown.length > 0)
      throw invalid('REORDER_UNKNOWN_ID', 'Some ids are not live categories or groups.', unknown)

    const placed = items.map((item) => ({
      id: item.id,
      groupId: item.groupId ?? (currentGroup.get(item.id) as string),
      position: item.position,
    }))
    const values = sql.join(placed.map((p) => sql`(${p.id}::text, ${p.groupId}::text, ${p.position}::int)`))
    await sql`
      update categories as c
      set group_id = v.group_id, position = v.position, updated_at = ${ctx.now}
      from (values ${values}) as v(id, group_id, position)
      where c.household_id = ${ctx.householdId} and c.id = v.id`.execute(tx)

    const clash = await tx
      .selectFrom('categories')
      .select(['group_id', sql<string>`min(name)`.as('name')])
      .where('household_id', '=', ctx.householdId)
      .where('deleted_at', 'is', null)
      .where('group_id', 'in', [...new Set(placed.map((p) => p.groupId))])
      .groupBy(['group_id', sql`lower(name)`])
      .having(sql`count(*)`, '>', 1)
      .executeTakeFirst()
    if (clash) {
      throw conflict(
        'CATEGORY_NAME_TAKEN',
        `The move would put two categories named "${clash.name}" in one group.`,
        {
          categoryGroupId: clash.group_id,
        },
      )
    }
    ctx.emit('category.reordered', { items: placed })
    return { count: placed.length }
  },
})
