import { type Kysely, sql } from 'kysely'
import type { Database } from '../database.ts'

/** One name a question may use: a category (marked when it is an income one), payee, alias, account or tag. */
export interface HouseholdName {
  kind: 'category' | 'payee' | 'account' | 'tag'
  id: string
  name: string
  /** The spelling: the name, or one of a payee's exact aliases. */
  spelling: string
  isIncome: boolean
}

/** Which kinds of name the caller may read (its key's scopes). */
export interface NameKinds {
  categories: boolean
  payees: boolean
  accounts: boolean
  tags: boolean
}

/**
 * The household's live names for the offline assistant, in one statement (one round trip on
 * PostgreSQL rather than one per list): categories with whether their group is an income one,
 * payees and their exact aliases (a pattern or a regex is not a name), accounts and tags.
 */
export async function householdNames(
  db: Kysely<Database>,
  householdId: string,
  kinds: NameKinds,
): Promise<HouseholdName[]> {
  const parts = [
    kinds.categories &&
      sql`select 'category' as kind, c.id, c.name, c.name as spelling, coalesce(g.is_income, false) as is_income
        from categories c left join category_groups g on g.household_id = c.household_id and g.id = c.group_id
        where c.household_id = ${householdId} and c.deleted_at is null`,
    kinds.payees &&
      sql`select 'payee', p.id, p.name, p.name, false from payees p
        where p.household_id = ${householdId} and p.deleted_at is null`,
    kinds.payees &&
      sql`select 'payee', p.id, p.name, a.name, false from payee_aliases a
        join payees p on p.household_id = a.household_id and p.id = a.payee_id and p.deleted_at is null
        where a.household_id = ${householdId} and a.deleted_at is null and a.match = 'exact'`,
    kinds.accounts &&
      sql`select 'account', a.id, a.name, a.name, false from accounts a
        where a.household_id = ${householdId} and a.deleted_at is null`,
    kinds.tags &&
      sql`select 'tag', t.id, t.name, t.name, false from tags t where t.household_id = ${householdId}`,
  ].filter((p) => p !== false)
  if (parts.length === 0) return []
  const { rows } = await sql<{
    kind: HouseholdName['kind']
    id: string
    name: string
    spelling: string
    is_income: boolean
  }>`${sql.join(parts, sql` union all `)}`.execute(db)
  return rows.map((r) => ({
    kind: r.kind,
    id: r.id,
    name: r.name,
    spelling: r.spelling,
    isIncome: r.is_income,
  }))
}
