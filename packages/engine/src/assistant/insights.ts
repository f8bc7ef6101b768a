import { sql } from 'kysely'
import { z } from 'zod'
import { notFound } from '../errors.ts'
import { RefIdSchema } from '../ledger/schema.ts'
import { defineMutator, defineQuery } from '../mutator/define.ts'
import { decodeInstantCursor, encodeInstantCursor, pageOf } from '../shared/cursor.ts'
import { ListInsightsArgsSchema } from './schema.ts'
import type { InsightRow } from './tables.ts'

/** An insight as the API shows it. */
export interface Insight {
  id: string
  kind: string
  periodStart: string
  periodEnd: string
  severity: 'info' | 'warning' | 'alert'
  title: string
  body: string
  evidence: Record<string, unknown>
  createdAt: string
  dismissed: boolean
  dismissedAt: string | null
}

export function toInsight(row: InsightRow): Insight {
  return {
    id: row.id,
    kind: row.kind,
    periodStart: row.period_start,
    periodEnd: row.period_end,
    severity: row.severity,
    title: row.title,
    body: row.body,
    evidence: row.evidence,
    createdAt: new Date(row.created_at).toISOString(),
    dismissed: row.dismissed_at !== null,
    dismissedAt: row.dismissed_at ? new Date(row.dismissed_at).toISOString() : null,
  }
}

/** The household's insights, newest first; dismissed ones only with `includeDismissed`. */
export const listInsights = defineQuery({
  audience: 'server',
  description: "The household's insights, newest first; dismissed ones only with includeDismissed=true.",
  scope: 'read:insights',
  args: ListInsightsArgsSchema,
  async run(db, args, ctx) {
    let query = db.selectFrom('ai_insights').selectAll().where('household_id', '=', ctx.householdId)
    if (!args.includeDismissed) query = query.where('dismissed_at', 'is', null)
    if (args.kind) query = query.where('kind', '=', args.kind)
    if (args.periodStart) query = query.where('period_start', '=', args.periodStart)
    if (args.cursor) {
      const after = decodeInstantCursor(args.cursor)
      query = query.where(sql<boolean>`(created_at, id) < (${after.at}::timestamptz, ${after.id})`)
    }
    const rows = await query
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(args.limit + 1)
      .execute()
    const { page, nextCursor } = pageOf(rows, args.limit, (last) =>
      encodeInstantCursor({ at: new Date(last.created_at).toISOString(), id: last.id }),
    )
    return { items: page.map(toInsight), nextCursor }
  },
})

/** Dismisses an insight; dismissing again answers it unchanged. */
export const dismissInsight = defineMutator({
  audience: 'server',
  description: 'Dismisses an insight; dismissing it again changes nothing.',
  scope: 'write:insights',
  args: z.strictObject({ id: RefIdSchema }),
  async run(tx, args, ctx) {
    await tx
      .updateTable('ai_insights')
      .set({ dismissed_at: ctx.now, dismissed_by: ctx.userId })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .where('dismissed_at', 'is', null)
      .execute()
    const row = await tx
      .selectFrom('ai_insights')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .executeTakeFirst()
    if (!row) throw notFound('Insight', args.id)
    return toInsight(row)
  },
})
