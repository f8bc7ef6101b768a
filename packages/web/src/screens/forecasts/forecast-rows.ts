/** A category's forecast parts, positive cents of money out, as `forecasts.get` answers them. */
export interface ForecastParts {
  categoryId: string | null
  actualCents: string
  scheduledCents: string
  projectedCents: string
  totalCents: string
}

/** A budget category as `budgets.get` lists it, reduced to what the forecast is set beside. */
export interface BudgetedCategory {
  id: string
  name: string
  kind: string
  assignedCents: string
}

/** One line of the forecast table: the forecast's parts beside what the month assigned. */
export interface ForecastRow extends ForecastParts {
  name: string
  assignedCents: string
  /** Assigned less the forecast total: below zero, the month is forecast to spend more than it assigned. */
  leftCents: string
}

const NONE = { actualCents: '0', scheduledCents: '0', projectedCents: '0', totalCents: '0' }

/**
 * The forecast's categories beside the month's budget: every spending category with money
 * assigned or forecast, in the budget's order, then any forecast category the budget does not
 * list (a deleted one, named by `names`), then uncategorized spending last.
 */
export function forecastRows(
  forecast: readonly ForecastParts[],
  budget: readonly BudgetedCategory[],
  names: ReadonlyMap<string, string>,
): ForecastRow[] {
  const parts = new Map(forecast.map((f) => [f.categoryId, f]))
  const row = (id: string | null, name: string, assigned: string): ForecastRow => {
    const f = parts.get(id) ?? { categoryId: id, ...NONE }
    return {
      ...f,
      categoryId: id,
      name,
      assignedCents: assigned,
      leftCents: (BigInt(assigned) - BigInt(f.totalCents)).toString(),
    }
  }
  const rows: ForecastRow[] = []
  const listed = new Set<string | null>()
  for (const c of budget) {
    if (c.kind !== 'spending' || (BigInt(c.assignedCents) === 0n && !parts.has(c.id))) continue
    rows.push(row(c.id, c.name, c.assignedCents))
    listed.add(c.id)
  }
  for (const f of forecast) {
    if (f.categoryId === null || listed.has(f.categoryId)) continue
    rows.push(row(f.categoryId, names.get(f.categoryId) ?? 'A category', '0'))
  }
  if (parts.has(null)) rows.push(row(null, 'Uncategorized', '0'))
  return rows
}
