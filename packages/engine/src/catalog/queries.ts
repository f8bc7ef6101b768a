import { sql } from 'kysely'
import { defineQuery } from '../mutator/define.ts'
import { IdArgsSchema, NoArgsSchema } from './fields.ts'
import { liveCategories, requireCategory, requireCategoryGroup, requireFlag, requireTag } from './lookups.ts'
import {
  type Category,
  type CategoryGroup,
  type Flag,
  type Payee,
  type Tag,
  toCategory,
  toCategoryGroup,
  toFlag,
  toPayee,
  toTag,
} from './model.ts'
import { ListCategoriesArgsSchema, ListPayeesArgsSchema } from './schema.ts'

/** Live groups in display order (position, then id), each with its live categories nested in order. */
export const listCategoryGroups = defineQuery({
  audience: 'device',
  description:
    'Live groups in display order (position, then id), each with its live categories nested in order.',
  scope: 'read:categories',
  args: NoArgsSchema,
  async run(db, _args, ctx): Promise<{ items: CategoryGroup[] }> {
    const groups = await db
      .selectFrom('category_groups')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .where('deleted_at', 'is', null)
      .orderBy('position')
      .orderBy('id')
      .execute()
    const byGroup = new Map<string, Category[]>(groups.map((g) => [g.id, []]))
    for (const row of await liveCategories(db, ctx.householdId))
      byGroup.get(row.group_id)?.push(toCategory(row))
    return { items: groups.map((g) => toCategoryGroup(g, byGroup.get(g.id))) }
  },
})

/** One live group with its live categories. */
export const getCategoryGroup = defineQuery({
  audience: 'device',
  description: 'One live group with its live categories.',
  scope: 'read:categories',
  args: IdArgsSchema,
  async run(db, args, ctx): Promise<CategoryGroup> {
    const group = await requireCategoryGroup(db, ctx.householdId, args.id)
    const categories = await liveCategories(db, ctx.householdId, [group.id])
    return toCategoryGroup(group, categories.map(toCategory))
  },
})

/** Live categories in display order: by their group's position, then their own; optionally one group's. */
export const listCategories = defineQuery({
  audience: 'device',
  description: "Live categories in display order: by their group's position, then their own.",
  scope: 'read:categories',
  args: ListCategoriesArgsSchema,
  async run(db, args, ctx): Promise<{ items: Category[] }> {
    let query = db
      .selectFrom('categories as c')
      .innerJoin('category_groups as g', (j) =>
        j.onRef('g.household_id', '=', 'c.household_id').onRef('g.id', '=', 'c.group_id'),
      )
      .selectAll('c')
      .where('c.household_id', '=', ctx.householdId)
    if (args.include !== 'deleted')
      query = query.where('c.deleted_at', 'is', null).where('g.deleted_at', 'is', null)
    if (args.groupId !== undefined) query = query.where('c.group_id', '=', args.groupId)
    const rows = await query
      .orderBy('g.position')
      .orderBy('g.id')
      .orderBy('c.position')
      .orderBy('c.id')
      .execute()
    return {
      items: rows.map((row) =>
        args.include === 'deleted'
          ? { ...toCategory(row), deletedAt: row.deleted_at?.toISOString() ?? null }
          : toCategory(row),
      ),
    }
  },
})

/** One live category. */
export const getCategory = defineQuery({
  audience: 'device',
  description: 'One live category.',
  scope: 'read:categories',
  args: IdArgsSchema,
  async run(db, args, ctx): Promise<Category> {
    return toCategory(await requireCategory(db, ctx.householdId, args.id))
  },
})

/** Every live payee (and with `include: 'deleted'` the deleted ones), by normalized name, then id. */
export const listPayees = defineQuery({
  audience: 'device',
  description:
    "Every live payee, alphabetical by normalized name, then id; with include 'deleted', deleted ones too.",
  scope: 'read:payees',
  args: ListPayeesArgsSchema,
  async run(db, args, ctx): Promise<{ items: Payee[] }> {
    let query = db.selectFrom('payees').selectAll().where('household_id', '=', ctx.householdId)
    if (args.include !== 'deleted') query = query.where('deleted_at', 'is', null)
    const rows = await query.orderBy('normalized_name').orderBy('id').execute()
    return {
      items: rows.map((row) =>
        args.include === 'deleted'
          ? { ...toPayee(row), deletedAt: row.deleted_at?.toISOString() ?? null }
          : toPayee(row),
      ),
    }
  },
})

/** Every tag as a bare array (the contract's shape), alphabetical ignoring case, then id. */
export const listTags = defineQuery({
  audience: 'device',
  description: "Every tag as a bare array (the contract's shape), alphabetical ignoring case, then id.",
  scope: 'read:tags',
  args: NoArgsSchema,
  async run(db, _args, ctx): Promise<Tag[]> {
    const rows = await db
      .selectFrom('tags')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .orderBy(sql`lower(name)`)
      .orderBy('id')
      .execute()
    return rows.map(toTag)
  },
})

/** One tag. */
export const getTag = defineQuery({
  audience: 'device',
  description: 'One tag.',
  scope: 'read:tags',
  args: IdArgsSchema,
  async run(db, args, ctx): Promise<Tag> {
    return toTag(await requireTag(db, ctx.householdId, args.id))
  },
})

/** Every flag in display order (position, then id); read with the transaction scope, as flags mark transactions. */
export const listFlags = defineQuery({
  audience: 'device',
  description: 'Every flag in display order (position, then id).',
  scope: 'read:transactions',
  args: NoArgsSchema,
  async run(db, _args, ctx): Promise<{ items: Flag[] }> {
    const rows = await db
      .selectFrom('flags')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .orderBy('position')
      .orderBy('id')
      .execute()
    return { items: rows.map(toFlag) }
  },
})

/** One flag. */
export const getFlag = defineQuery({
  audience: 'device',
  description: 'One flag.',
  scope: 'read:transactions',
  args: IdArgsSchema,
  async run(db, args, ctx): Promise<Flag> {
    return toFlag(await requireFlag(db, ctx.householdId, args.id))
  },
})
