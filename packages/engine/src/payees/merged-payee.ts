import type { Kysely, Transaction } from 'kysely'
import { IdArgsSchema } from '../catalog/fields.ts'
import { type Payee, toPayee } from '../catalog/model.ts'
import type { Database } from '../database.ts'
import { EngineError, notFound } from '../errors.ts'
import { defineQuery } from '../mutator/define.ts'

type Db = Kysely<Database> | Transaction<Database>

/** How many merges a chain is followed through (A into B, B into C, …) before giving up. */
const MAX_CHAIN = 20

/**
 * Where a payee merged away went: the live payee at the end of its chain of standing merges
 * (A into B, then B into C answers C), or undefined when it was not merged or the chain ends
 * in a deleted payee.
 */
export async function mergedInto(db: Db, householdId: string, payeeId: string): Promise<string | undefined> {
  let current = payeeId
  for (let i = 0; i < MAX_CHAIN; i++) {
    const merge = await db
      .selectFrom('payee_merges')
      .select('target_payee_id')
      .where('household_id', '=', householdId)
      .where('source_payee_id', '=', current)
      .where('unmerged_at', 'is', null)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst()
    if (!merge) return undefined
    current = merge.target_payee_id
    const live = await db
      .selectFrom('payees')
      .select('id')
      .where('household_id', '=', householdId)
      .where('id', '=', current)
      .where('deleted_at', 'is', null)
      .executeTakeFirst()
    if (live) return current
  }
  return undefined
}

/**
 * One live payee; a payee merged away answers 404 `PAYEE_MERGED` naming the payee it went into
 * (`mergedInto`), so a caller holding an old id can follow it instead of losing the trail.
 */
export const getPayee = defineQuery({
  audience: 'device',
  description:
    'One live payee; one merged away answers 404 PAYEE_MERGED with mergedInto, the payee it went into.',
  scope: 'read:payees',
  args: IdArgsSchema,
  async run(db, args, ctx): Promise<Payee> {
    const row = await db
      .selectFrom('payees')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .executeTakeFirst()
    if (row && row.deleted_at === null) return toPayee(row)
    const target = row ? await mergedInto(db, ctx.householdId, row.id) : undefined
    if (!target) throw notFound('Payee', args.id)
    throw new EngineError(404, 'PAYEE_MERGED', `Payee ${args.id} was merged into payee ${target}.`, {
      extra: { resource: 'Payee', mergedInto: target },
    })
  },
})
