import { sql, type Transaction } from 'kysely'
import { deriveUlid } from '../catalog/model.ts'
import type { Database } from '../database.ts'
import type { TransactionRow } from '../ledger/tables.ts'
import type { TransactionPipelineStep } from '../ledger/transactions/pipeline.ts'
import type { MutationContext } from '../mutator/context.ts'
import type { RuleSubject } from './classify.ts'
import { enabledRuleSetOf } from './load.ts'
import { toRule } from './model.ts'
import { MAX_PRIORITY } from './schema.ts'

/** How many of a payee's latest categorized rows are looked at. */
export const LEARN_WINDOW = 5
/** How many of them must share a category for a rule to be learned. */
export const LEARN_AFTER = 3
/** At most this many payees are looked at per write: a hand-made write names one or two. */
const MAX_PAYEES = 20

/** The id of a payee's learned rule: the same on every device, so a payee has at most one. */
export function learnedRuleId(payeeId: string): string {
  return deriveUlid(payeeId, 'rule:learned-category')
}

/**
 * Learns categories as Actual Budget does: once a household has given the same category to a
 * payee's rows LEARN_AFTER times among its LEARN_WINDOW latest categorized rows, a rule
 * "payee is X → set category C" is made (or, if learning made it and nobody changed it since,
 * moved to C), unless the household's rules already give C. The rule runs last (the largest
 * priority), so the household's own rules win. A learned rule someone changed is left alone,
 * and one someone deleted is never made again: the payee's rule id stays taken. Whichever key
 * categorized the rows teaches alike: the rule only repeats what the household did three times.
 */
export async function learnCategories(
  tx: Transaction<Database>,
  ctx: MutationContext,
  rows: readonly TransactionRow[],
): Promise<void> {
  const byPayee = new Map<string, TransactionRow>()
  for (const row of rows) {
    if (!row.payee_id || !row.category_id || row.deleted_at || row.merged_into_id) continue
    if (row.kind !== 'normal' || row.transfer_group_id) continue
    byPayee.set(row.payee_id, row)
  }
  for (const [payeeId, row] of [...byPayee].slice(0, MAX_PAYEES)) {
    const categoryId = row.category_id as string
    const ruleId = learnedRuleId(payeeId)
    const existing = await tx
      .selectFrom('rules')
      .select(['deleted_at', 'learned', 'enabled', 'action'])
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', ruleId)
      .executeTakeFirst()
    // Deleted (a no), or changed since it was learned (the household's own now).
    if (existing && (existing.deleted_at !== null || !existing.learned)) continue
    if (existing?.action.setCategoryId === categoryId) continue
    const { rows: latest } = await sql<{ category_id: string }>`
      select category_id from transactions
      where household_id = ${ctx.householdId} and payee_id = ${payeeId} and category_id is not null
        and deleted_at is null and merged_into_id is null and kind = 'normal' and transfer_group_id is null
      order by date desc, id desc
      limit ${LEARN_WINDOW}`.execute(tx)
    if (latest.filter((r) => r.category_id === categoryId).length < LEARN_AFTER) continue
    const payee = await tx
      .selectFrom('payees')
      .select('name')
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', payeeId)
      .executeTakeFirstOrThrow()
    if (!existing) {
      // The household's rules already give this category: nothing to learn.
      const rules = await enabledRuleSetOf(tx, ctx)
      if (rules.size > 0 && rules.classify(subjectOf(row, payee.name)).categoryId === categoryId) continue
    }
    const action = JSON.stringify({ setCategoryId: categoryId })
    if (existing) {
      const updated = await tx
        .updateTable('rules')
        .set({ action, updated_at: ctx.now })
        .where('household_id', '=', ctx.householdId)
        .where('id', '=', ruleId)
        .returningAll()
        .executeTakeFirstOrThrow()
      ctx.emit('rule.updated', { rule: toRule(updated), changes: ['action'] })
      continue
    }
    const created = await tx
      .insertInto('rules')
      .values({
        household_id: ctx.householdId,
        id: ruleId,
        name: `${payee.name.slice(0, 180)} (learned)`,
        predicate: JSON.stringify({
          combinator: 'all',
          conditions: [{ field: 'payee_id', op: 'is', value: payeeId }],
        }),
        action,
        enabled: true,
        priority: MAX_PRIORITY,
        learned: true,
        created_at: ctx.now,
        updated_at: ctx.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    ctx.emit('rule.created', { rule: toRule(created) })
  }
}

/** A row as the rules would see it if it had no category yet. */
function subjectOf(row: TransactionRow, payeeName: string): RuleSubject {
  return {
    payeeId: row.payee_id,
    payeeName,
    importedPayee: row.imported_payee,
    memo: row.memo,
    categoryId: null,
    accountId: row.account_id,
    amountCents: Number(row.amount_cents),
    date: row.date,
    tagIds: [],
    flagIds: [],
    hasSplits: false,
  }
}

/**
 * The pipeline's learning step: a row created by hand or updated with a category (a bulk import
 * is the bank's word, not the household's, and teaches nothing).
 */
export const learnCategoriesStep: TransactionPipelineStep = {
  name: 'rules.learn',
  async written(tx, rows, ctx, write) {
    if (write === 'bulkCreate') return
    await learnCategories(tx, ctx, rows)
  },
}
