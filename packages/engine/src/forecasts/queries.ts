import { z } from 'zod'
import { MonthSchema } from '../budgets/month.ts'
import { QueryBooleanSchema } from '../ledger/schema.ts'
import { defineQuery } from '../mutator/define.ts'
import { householdToday } from '../recurrences/lookups.ts'
import { type Forecast, forecastMonth } from './forecast.ts'

export const ForecastArgsSchema = z.strictObject({
  month: MonthSchema,
  /** Asks for a language-model adjustment pass; none exists yet, and the answer says so. */
  refine: QueryBooleanSchema.optional(),
})

/** A forecast, and whether a refinement pass changed it. */
export interface ForecastAnswer extends Forecast {
  refinement: { requested: boolean; applied: false; reason: string | null }
}

/** A month's spending forecast per category: actual so far, scheduled, projected, and total. */
export const getForecast = defineQuery({
  audience: 'device',
  description:
    "A month's projected spending per category: actual so far, scheduled rest and projected variable rest.",
  scope: 'read:forecasting',
  args: ForecastArgsSchema,
  async run(db, args, ctx): Promise<ForecastAnswer> {
    const today = await householdToday(db, ctx.householdId, ctx.now)
    const forecast = await forecastMonth(db, ctx.householdId, args.month, today)
    const requested = args.refine === true
    return {
      ...forecast,
      refinement: {
        requested,
        applied: false,
        reason: requested
          ? 'No language-model refinement is available yet; this is the unrefined forecast.'
          : null,
      },
    }
  },
})
