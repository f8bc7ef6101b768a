import type { Hearth } from '@hearth/client'
import { useMemo } from 'preact/hooks'
import { useWatch } from './hooks.ts'

/** Names by id for the register and the rules: payees, categories by group, tags, accounts. */
export function useLookups(hearth: Hearth) {
  const payees = useWatch(hearth, 'payees.list', {}).data
  const categories = useWatch(hearth, 'categories.list', {}).data
  const groups = useWatch(hearth, 'categoryGroups.list', {}).data
  const tags = useWatch(hearth, 'tags.list', {}).data
  const accounts = useWatch(hearth, 'accounts.list', {}).data
  return useMemo(() => {
    const payeeList = payees?.items ?? []
    const categoryList = categories?.items ?? []
    const groupList = groups?.items ?? []
    return {
      ready: !!(payees && categories && groups && tags && accounts),
      payees: payeeList,
      payeeName: new Map(payeeList.map((p) => [p.id, p.name])),
      categoryName: new Map(categoryList.map((c) => [c.id, c.name])),
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
}

export type Lookups = ReturnType<typeof useLookups>
