import type { TransactionPipelineStep } from '../ledger/transactions/pipeline.ts'
import type { MutationContext } from '../mutator/context.ts'
import type { RuleSubject } from './classify.ts'
import { enabledRuleSetOf } from './load.ts'
import { type AppliedRow, recordApplications } from './record.ts'

/** Applications found while rows were drafted, recorded once the rows exist. */
const pending = new WeakMap<MutationContext, AppliedRow[]>()

/**
 * Runs the household's enabled rules on new rows (create and bulk import), before they are
 * written and before import matching. A category the request set is never replaced, nor a payee
 * on a hand-entered row (an imported row's payee is the bank's text, which rules may rename); memo pieces are added to what the request sent; tags and flags are added. Reconciled
 * and system rows are left alone. Each change is recorded as an `auto` application.
 */
export const applyRulesStep: TransactionPipelineStep = {
  name: 'rules.classify',
  async drafted(tx, drafts, ctx) {
    const candidates = drafts.filter(
      (d) => d.row.status !== 'reconciled' && (d.row.kind ?? 'normal') === 'normal',
    )
    if (candidates.length === 0) return
    const rules = await enabledRuleSetOf(tx, ctx)
    if (rules.size === 0) return
    const payeeIds = [...new Set(candidates.flatMap((d) => (d.row.payee_id ? [d.row.payee_id] : [])))]
    const names =
      payeeIds.length === 0
        ? new Map<string, string>()
        : new Map(
            (
              await tx
                .selectFrom('payees')
                .select(['id', 'name'])
                .where('household_id', '=', ctx.householdId)
                .where('id', 'in', payeeIds)
                .execute()
            ).map((p) => [p.id, p.name]),
          )
    const applied: AppliedRow[] = []
    for (const draft of candidates) {
      const row = draft.row
      const payeeName = row.payee_id ? (names.get(row.payee_id) ?? null) : null
      const subject: RuleSubject = {
        payeeId: row.payee_id ?? null,
        payeeName,
        importedPayee: row.source === 'imported' ? payeeName : null,
        memo: row.memo ?? null,
        categoryId: row.category_id ?? null,
        accountId: row.account_id,
        amountCents: Number(row.amount_cents),
        date: row.date,
        tagIds: draft.tagIds,
        flagIds: draft.flagIds,
        hasSplits: draft.splits.length > 0,
      }
      // An imported row's payee is the bank's text, not a choice: rules may rename it, as
      // Actual's payee rules do. A category, or a payee on a hand-entered row, is the user's.
      const result = rules.classify(subject, {
        categoryId: subject.categoryId !== null,
        payeeId: subject.payeeId !== null && row.source !== 'imported',
      })
      if (result.applications.length === 0) continue
      row.category_id = result.categoryId
      row.payee_id = result.payeeId
      row.memo = result.memo
      if (result.addedTagIds.length > 0) draft.tagIds = [...draft.tagIds, ...result.addedTagIds]
      if (result.addedFlagIds.length > 0) draft.flagIds = [...draft.flagIds, ...result.addedFlagIds]
      applied.push({ transactionId: row.id, result })
    }
    if (applied.length > 0) pending.set(ctx, [...(pending.get(ctx) ?? []), ...applied])
  },
  async written(tx, _rows, ctx) {
    const applied = pending.get(ctx)
    if (!applied) return
    pending.delete(ctx)
    await recordApplications(tx, ctx.householdId, applied, ctx.now)
  },
}
