import type { TransactionPipelineStep } from '../ledger/transactions/pipeline.ts'
import type { MutationContext } from '../mutator/context.ts'
import { idList } from '../shared/id-list.ts'
import type { RuleChanges, RuleSubject } from './classify.ts'
import { enabledRuleSetOf } from './load.ts'
import { type AppliedRow, recordApplications } from './record.ts'

/** Applications found while rows were drafted, recorded once the rows exist. */
const pending = new WeakMap<MutationContext, AppliedRow[]>()
/** Rows whose payee the pre-stage decided: the payee is won, later rules leave it. */
const preDecided = new WeakMap<MutationContext, Set<string>>()

/** One record per (row, rule): a rule that renamed the payee in the pre-stage and set more later is one record. */
function mergedApplications(applied: readonly AppliedRow[]): AppliedRow[] {
  const byRow = new Map<string, Map<string, RuleChanges>>()
  for (const row of applied) {
    const rules = byRow.get(row.transactionId) ?? new Map<string, RuleChanges>()
    for (const a of row.result.applications) rules.set(a.ruleId, { ...rules.get(a.ruleId), ...a.changes })
    byRow.set(row.transactionId, rules)
  }
  return [...byRow].map(([transactionId, rules]) => ({
    transactionId,
    result: { applications: [...rules].map(([ruleId, changes]) => ({ ruleId, changes })) },
  }))
}

/**
 * Runs the household's enabled rules on new rows (create and bulk import), before they are
 * written and before import matching. A category the request set is never replaced, nor a payee
 * on a hand-entered row (an imported row's payee is the bank's text, which rules may rename); memo pieces are added to what the request sent; tags and flags are added. Reconciled
 * and system rows are left alone. Each change is recorded as an `auto` application.
 */
export const applyRulesStep: TransactionPipelineStep = {
  name: 'rules.classify',
  /**
   * The pre-stage (Actual's "pre" rules): on imported rows, rules see the bank's raw text as both
   * `imported_payee` and `payee_name` before it becomes a payee, so a rule that renames the payee
   * decides it and no payee is made of the raw text.
   */
  async payeesForImports(tx, rows, ctx) {
    const decided = new Map<string, string>()
    const rules = await enabledRuleSetOf(tx, ctx)
    // Only a rule that sets a payee can decide one here: without any, no row is asked about.
    if (!rules.setsPayees) return decided
    const applied: AppliedRow[] = []
    for (const row of rows) {
      const renamed = rules.payeeRename(
        {
          payeeId: null,
          payeeName: row.payeeText,
          importedPayee: row.payeeText,
          memo: row.memo,
          categoryId: row.categoryId,
          accountId: row.accountId,
          amountCents: row.amountCents,
          date: row.date,
          tagIds: [],
          flagIds: [],
          hasSplits: false,
        },
        { categoryId: row.categoryId !== null },
      )
      if (!renamed || renamed.change.to === null) continue
      decided.set(row.id, renamed.change.to)
      applied.push({
        transactionId: row.id,
        result: { applications: [{ ruleId: renamed.ruleId, changes: { payeeId: renamed.change } }] },
      })
    }
    if (applied.length > 0) pending.set(ctx, [...(pending.get(ctx) ?? []), ...applied])
    preDecided.set(ctx, new Set(decided.keys()))
    return decided
  },
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
                .where('id', '=', idList(payeeIds))
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
        importedPayee: row.imported_payee ?? null,
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
        payeeId:
          subject.payeeId !== null &&
          (row.source !== 'imported' || (preDecided.get(ctx)?.has(row.id) ?? false)),
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
    preDecided.delete(ctx)
    const applied = pending.get(ctx)
    if (!applied) return
    pending.delete(ctx)
    await recordApplications(tx, ctx.householdId, mergedApplications(applied), ctx.now)
  },
}
