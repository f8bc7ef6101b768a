import type { ColumnType, Selectable } from 'kysely'
import type { CategoryGoal } from './category-goal.ts'

type Timestamp = ColumnType<Date, Date | string, Date | string>

/** A named band of categories, shown in order; income groups hold the categories money arrives in. */
export interface CategoryGroupsTable {
  household_id: string
  id: string
  name: string
  position: ColumnType<number, number | undefined, number>
  hidden: ColumnType<boolean, boolean | undefined, boolean>
  is_income: ColumnType<boolean, boolean | undefined, boolean>
  created_at: Timestamp
  updated_at: Timestamp
  deleted_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
}

/** A budget envelope inside one group; transactions and splits point at it. */
export interface CategoriesTable {
  household_id: string
  id: string
  group_id: string
  name: string
  position: ColumnType<number, number | undefined, number>
  hidden: ColumnType<boolean, boolean | undefined, boolean>
  /** The budget goal, as the API shows it; written as JSON text. */
  goal: ColumnType<CategoryGoal | null, string | null | undefined, string | null>
  /** Cash overspending stays in the category into next month instead of leaving Ready to Assign. */
  carry_overspending: ColumnType<boolean, boolean | undefined, boolean>
  created_at: Timestamp
  updated_at: Timestamp
  deleted_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
}

/** Who money goes to or comes from; `normalized_name` is the folded form payees are matched on. */
export interface PayeesTable {
  household_id: string
  id: string
  name: string
  normalized_name: string
  /** The category new transactions with this payee default to. */
  category_id: string | null
  created_at: Timestamp
  updated_at: Timestamp
  deleted_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
}

/** A free label on transactions; hard-deleted, and its links go with it. */
export interface TagsTable {
  household_id: string
  id: string
  name: string
  color: string | null
  created_at: Timestamp
  updated_at: Timestamp
}

/** A coloured marker on transactions (Red, Blue, ...); hard-deleted, and its links go with it. */
export interface FlagsTable {
  household_id: string
  id: string
  name: string
  color: string
  position: ColumnType<number, number | undefined, number>
  created_at: Timestamp
  updated_at: Timestamp
}

/** Categories, category groups, payees, tags and flags: the vocabulary rows refer to. */
export type CatalogTables = {
  category_groups: CategoryGroupsTable
  categories: CategoriesTable
  payees: PayeesTable
  tags: TagsTable
  flags: FlagsTable
}

export type CategoryGroupRow = Selectable<CategoryGroupsTable>
export type CategoryRow = Selectable<CategoriesTable>
export type PayeeRow = Selectable<PayeesTable>
export type TagRow = Selectable<TagsTable>
export type FlagRow = Selectable<FlagsTable>
