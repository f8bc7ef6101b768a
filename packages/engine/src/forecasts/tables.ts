/**
 * Spending summed per day, account, category ('' when uncategorized) and whether a recurrence
 * booked it (migration 0030): positive cents are money out. Each store keeps its own by triggers.
 */
export interface ForecastDaysTable {
  household_id: string
  date: string
  account_id: string
  category_id: string
  recurring: boolean
  spent_cents: string
}

/** The forecasts' tables. */
export type ForecastTables = {
  forecast_days: ForecastDaysTable
}
