/**
 * A report's state at the end of a month, kept so the next reader reads only the rows after it
 * (migration 0051, `closings.ts`): `report` is `netWorth`, `cashFlow` or `ageOfMoney`, `state` its JSON. Each
 * store computes and keeps its own; triggers forget a household's from the first month a change
 * reaches.
 */
export interface ReportClosingsTable {
  household_id: string
  report: string
  month: string
  state: string
}

/** The reports' tables. */
export type ReportTables = {
  report_closings: ReportClosingsTable
}
