import { sql } from 'kysely'
import { z } from 'zod'
import { conflict } from '../../errors.ts'
import { defineMutator } from '../../mutator/define.ts'
import { UlidSchema } from '../../shared/schema.ts'
import { MAX_POSITION } from '../fields.ts'
import { nextPosition } from '../lookups.ts'
import { type Category, type CategoryGroup, deriveUlid, toCategory, toCategoryGroup } from '../model.ts'
import { STARTER_PACK, starterPackLanguage } from '../starter-pack.ts'
import type { CategoryGroupRow, CategoryRow } from '../tables.ts'

export const SeedStarterPackArgsSchema = z.strictObject({
  /** The ids of new rows derive from it, so a replay anywhere creates the same rows. */
  seedId: UlidSchema,
})
export type SeedStarterPackArgs = z.output<typeof SeedStarterPackArgsSchema>

/** What a starter-pack run did: rows it created, and existing rows it found by name and left alone. */
export interface StarterPackResult {
  /** The pack language used: the household's data language, or `en` when the pack lacks it. */
  language: string
  created: { groups: CategoryGroup[]; categories: Category[] }
  skipped: { groups: CategoryGroup[]; categories: Category[] }
}

/** The id a starter row gets in the run seeded by `seedId`. */
export function starterPackId(seedId: string, kind: 'group' | 'category', key: string): string {
  return deriveUlid(seedId, `starter:${kind}:${key}`)
}

/**
 * Seeds the starter categories in the household's data language, idempotent by name: a live
 * group with a pack group's name (ignoring case) is reused, a pack category whose name any live
 * category of the household already has is skipped, so re-running never duplicates.
 */
export const seedStarterPack = defineMutator({
  audience: 'device',
  description:
    "Seeds the starter categories in the household's data language, idempotent by name: a live group with a pack group's name (ignoring case) is reused, a pack category whose name any live category of the household already has is skipped, so re-running never duplicates.",
  scope: 'write:categories',
  args: SeedStarterPackArgsSchema,
  async run(tx, args, ctx): Promise<StarterPackResult> {
    const household = await tx
      .selectFrom('households')
      .select('data_language')
      .where('id', '=', ctx.householdId)
      .executeTakeFirstOrThrow()
    const language = starterPackLanguage(household.data_language)

    // Match names in SQL, with the same lower() the uniqueness checks use.
    const groupNames = sql.join(STARTER_PACK.map((g) => sql`(${g.key}::text, ${g.names[language]}::text)`))
    const groupMatches = await sql<CategoryGroupRow & { key: string }>`
      select distinct on (v.key) v.key, g.*
      from (values ${groupNames}) as v(key, name)
      join category_groups g on g.household_id = ${ctx.householdId} and g.deleted_at is null
        and lower(g.name) = lower(v.name)
      order by v.key, g.position, g.id`.execute(tx)
    const categoryNames = sql.join(
      STARTER_PACK.flatMap((g) => g.categories.map((c) => sql`(${c.key}::text, ${c.names[language]}::text)`)),
    )
    const categoryMatches = await sql<CategoryRow & { key: string }>`
      select distinct on (v.key) v.key, c.*
      from (values ${categoryNames}) as v(key, name)
      join categories c on c.household_id = ${ctx.householdId} and c.deleted_at is null
        and lower(c.name) = lower(v.name)
      join category_groups g on g.household_id = c.household_id and g.id = c.group_id and g.deleted_at is null
      order by v.key, g.position, g.id, c.position, c.id`.execute(tx)
    const existingGroup = new Map(groupMatches.rows.map(({ key, ...row }) => [key, row as CategoryGroupRow]))
    const existingCategory = new Map(categoryMatches.rows.map(({ key, ...row }) => [key, row as CategoryRow]))

    const result: StarterPackResult = {
      language,
      created: { groups: [], categories: [] },
      skipped: { groups: [], categories: [] },
    }
    let groupPosition = await nextPosition(tx, 'category_groups', ctx.householdId)
    const newGroups: CategoryGroupRow[] = []
    const newCategories: (Omit<CategoryRow, 'goal'> & { goal: null })[] = []
    for (const pack of STARTER_PACK) {
      const reused = existingGroup.get(pack.key)
      if (reused) result.skipped.groups.push(toCategoryGroup(reused))
      const groupId = reused?.id ?? starterPackId(args.seedId, 'group', pack.key)
      if (!reused) {
        newGroups.push({
          household_id: ctx.householdId,
          id: groupId,
          name: pack.names[language],
          // After a row already at the last position, the new ones share it rather than overflow.
          position: Math.min(groupPosition++, MAX_POSITION),
          hidden: false,
          is_income: pack.isIncome,
          created_at: ctx.now,
          updated_at: ctx.now,
          deleted_at: null,
        })
      }
      let categoryPosition = reused ? await nextPosition(tx, 'categories', ctx.householdId, groupId) : 0
      for (const item of pack.categories) {
        const found = existingCategory.get(item.key)
        if (found) {
          result.skipped.categories.push(toCategory(found))
          continue
        }
        newCategories.push({
          household_id: ctx.householdId,
          id: starterPackId(args.seedId, 'category', item.key),
          group_id: groupId,
          name: item.names[language],
          position: Math.min(categoryPosition++, MAX_POSITION),
          hidden: false,
          goal: null,
          carry_overspending: false,
          created_at: ctx.now,
          updated_at: ctx.now,
          deleted_at: null,
        })
      }
    }

    await assertIdsFree(tx, 'category_groups', ctx.householdId, newGroups)
    await assertIdsFree(tx, 'categories', ctx.householdId, newCategories)
    if (newGroups.length > 0) {
      const rows = await tx.insertInto('category_groups').values(newGroups).returningAll().execute()
      const byId = new Map(rows.map((r) => [r.id, r]))
      for (const g of newGroups) {
        const group = toCategoryGroup(byId.get(g.id) as CategoryGroupRow)
        result.created.groups.push(group)
        ctx.emit('categoryGroup.created', { categoryGroup: { ...group, categories: [] } })
      }
    }
    if (newCategories.length > 0) {
      const rows = await tx.insertInto('categories').values(newCategories).returningAll().execute()
      const byId = new Map(rows.map((r) => [r.id, r]))
      for (const c of newCategories) {
        const category = toCategory(byId.get(c.id) as CategoryRow)
        result.created.categories.push(category)
        ctx.emit('category.created', { category })
      }
    }
    return result
  },
})

/**
 * Refuses the run when a derived id is already used (deleted rows included), which only happens
 * when a `seedId` is reused after rows it created were deleted.
 */
async function assertIdsFree(
  tx: Parameters<typeof nextPosition>[0],
  table: 'category_groups' | 'categories',
  householdId: string,
  rows: readonly { id: string }[],
): Promise<void> {
  if (rows.length === 0) return
  const taken = await tx
    .selectFrom(table)
    .select('id')
    .where('household_id', '=', householdId)
    .where(
      'id',
      'in',
      rows.map((r) => r.id),
    )
    .executeTakeFirst()
  if (taken) {
    throw conflict('ID_ALREADY_EXISTS', `The id ${taken.id} is already in use; send a new seedId.`, {
      id: taken.id,
    })
  }
}
