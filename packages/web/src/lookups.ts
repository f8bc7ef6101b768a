import type { Hearth } from '@hearth/client'
import { useMemo } from 'preact/hooks'
import { useWatch } from './hooks.ts'

/** How a deleted payee or category is named on rows that still point to it. */
function named(row: { name: string; deletedAt?: string | null }): string {
  return row.deletedAt ? `${row.name} (deleted)` : row.name
}

/**
 * Names by id for the register and the rules: payees, categories by group, tags, accounts. Rows
 * keep the id of a payee or category deleted since, so names include deleted ones (marked as
 * such); the lists to choose from hold live ones only.
 */
export function useLookups(hearth: Hearth) {
  const payeesRead = useWatch(hearth, 'payees.list', { include: 'deleted' })
  const categoriesRead = useWatch(hearth, 'categories.list', { include: 'deleted' })
  const groupsRead = useWatch(hearth, 'categoryGroups.list', {})
  const tagsRead = useWatch(hearth, 'tags.list', {})
  const accountsRead = useWatch(hearth, 'accounts.list', {})
  const payees = payeesRead.data
  const categories = categoriesRead.data
  const groups = groupsRead.data
  const tags = tagsRead.data
  const accounts = accountsRead.data
  const lookups = useMemo(() => {
    const allPayees = payees?.items ?? []
    const allCategories = categories?.items ?? []
    const payeeList = allPayees.filter((p) => !p.deletedAt)
    const categoryList = allCategories.filter((c) => !c.deletedAt)
    const groupList = groups?.items ?? []
    return {
      ready: !!(payees && categories && groups && tags && accounts),
      payees: payeeList,
      payeeName: new Map(allPayees.map((p) => [p.id, named(p)])),
      categoryName: new Map(allCategories.map((c) => [c.id, named(c)])),
      /** Visible categories under their groups, in the budget's order. */
      categoryGroups: groupList
        .filter((g) => !g.hidden)
        .map((g) => ({
          group: g,
          categories: categoryList.filter((c) => c.groupId === g.id && !c.hidden),
        }))
        .filter((g) => g.categories.length > 0),
      tags: tags ?? [],
      tagName: new Map((tags ?? []).map((t) => [t.id, t.name])),
      accounts: accounts?.items ?? [],
      account: new Map((accounts?.items ?? []).map((a) => [a.id, a])),
    }
  }, [payees, categories, groups, tags, accounts])
  // The reads whole, for ReadGuard: a screen built on names cannot show rows without them.
  const reads = {
    payees: payeesRead,
    categories: categoriesRead,
    groups: groupsRead,
    tags: tagsRead,
    accounts: accountsRead,
  }
  return { ...lookups, reads }
}

export type Lookups = ReturnType<typeof useLookups>
