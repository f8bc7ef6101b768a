/** A group of categories as the entry row lists them (`useLookups().categoryGroups`). */
export interface OfferedGroup {
  group: { isIncome: boolean }
  categories: readonly { id: string }[]
}

/** Whether an entry row's amount is money in: an inflow typed and no outflow. */
export function isInflow(draft: { inflow: string; outflow: string }): boolean {
  return draft.inflow.trim() !== '' && draft.outflow.trim() === ''
}

/** The groups with income groups first, each side in the budget's order. */
export function incomeFirst<G extends OfferedGroup>(groups: readonly G[]): G[] {
  return [...groups.filter((g) => g.group.isIncome), ...groups.filter((g) => !g.group.isIncome)]
}

/**
 * The category an entry row offers for its amount: what the person chose, else for money in the
 * household's first income category (YNAB's "Ready to Assign"), so a salary counts as income this
 * month rather than Uncategorized; else none.
 */
export function offeredCategory(
  draft: { inflow: string; outflow: string; categoryId: string },
  chosen: boolean,
  groups: readonly OfferedGroup[],
): string {
  if (chosen) return draft.categoryId
  if (!isInflow(draft)) return ''
  return groups.find((g) => g.group.isIncome)?.categories[0]?.id ?? ''
}
