import { sql } from 'kysely'
import { z } from 'zod'
import { conflict } from '../../errors.ts'
import { defineMutator } from '../../mutator/define.ts'
import { NameSchema, UlidSchema } from '../../shared/schema.ts'
import { MAX_POSITION } from '../fields.ts'
import { nextPosition } from '../lookups.ts'
import { type Category, type CategoryGroup, deriveUlid, toCategory, toCategoryGroup } from '../model.ts'
import { STARTER_PACK, starterPackLanguage } from '../starter-pack.ts'
import type { CategoryGroupRow, CategoryRow } from '../tables.ts'

/** A group of the pack as the household edited it before creating it (names in any language). */
const EditedGroupSchema = z.strictObject({
  name: NameSchema,
  isIncome: z.boolean().optional(),
  categories: z.array(NameSchema).max(100),
})

export const SeedStarterPackArgsSchema = z.strictObject({
  /** The ids of new rows derive from it, so a replay anywhere creates the same rows. */
  seedId: UlidSchema,
  /**
   * The pack as edited (renamed, some left out, some added) instead of the built-in one; the same
   * rules apply: matched by name, created in one transaction.
   */
  groups: z.array(EditedGroupSchema).min(1).max(50).optional(),
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
    const pack = args.groups ? editedPack(args.groups) : builtInPack(language)

    // Match names in SQL, with the same lower() the uniqueness checks use.
    const groupNames = sql.join(pack.map((g) => sql`(${g.key}::text, ${g.name}::text)`))
    const groupMatches = await sql<CategoryGroupRow & { key: string }>`
      select distinct on (v.key) v.key, g.*
      from (values ${groupNames}) as v(key, name)
      join category_groups g on g.household_id = ${ctx.householdId} and g.deleted_at is null
        and lower(g.name) = lower(v.name)
      order by v.key, g.position, g.id`.execute(tx)
    const categoryNames = sql.join(
      pack.flatMap((g) => g.categories.map((c) => sql`(${c.key}::text, ${c.name}::text)`)),
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
    for (const group of pack) {
      const reused = existingGroup.get(group.key)
      if (reused) result.skipped.groups.push(toCategoryGroup(reused))
      const groupId = reused?.id ?? starterPackId(args.seedId, 'group', group.key)
      if (!reused) {
        newGroups.push({
          household_id: ctx.householdId,
          id: groupId,
          name: group.name,
          // After a row already at the last position, the new ones share it rather than overflow.
          position: Math.min(groupPosition++, MAX_POSITION),
          hidden: false,
          is_income: group.isIncome,
          created_at: ctx.now,
          updated_at: ctx.now,
          deleted_at: null,
        })
      }
      let categoryPosition = reused ? await nextPosition(tx, 'categories', ctx.householdId, groupId) : 0
      for (const item of group.categories) {
        const found = existingCategory.get(item.key)
        if (found) {
          result.skipped.categories.push(toCategory(found))
          continue
        }
        newCategories.push({
          household_id: ctx.householdId,
          id: starterPackId(args.seedId, 'category', item.key),
          group_id: groupId,
          name: item.name,
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

/** A pack to seed: groups and categories with the keys their ids derive from, and their names. */
type Pack = { key: string; name: string; isIncome: boolean; categories: { key: string; name: string }[] }[]

function builtInPack(language: ReturnType<typeof starterPackLanguage>): Pack {
  return STARTER_PACK.map((g) => ({
    key: g.key,
    name: g.names[language],
    isIncome: g.isIncome,
    categories: g.categories.map((c) => ({ key: c.key, name: c.names[language] })),
  }))
}

/**
 * An edited pack, keyed by place (`edited:2:5`, the sixth category of the third group) so a replay
 * derives the same ids; a category name given twice is created once, as a name already there is.
 */
function editedPack(groups: NonNullable<SeedStarterPackArgs['groups']>): Pack {
  const seen = new Set<string>()
  return groups.map((g, i) => ({
    key: `edited:${i}`,
    name: g.name,
    isIncome: g.isIncome ?? false,
    categories: g.categories.flatMap((name, j) => {
      const folded = name.toLowerCase()
      if (seen.has(folded)) return []
      seen.add(folded)
      return [{ key: `edited:${i}:${j}`, name }]
    }),
  }))
}

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
