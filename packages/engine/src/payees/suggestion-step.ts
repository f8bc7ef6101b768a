import { sql, type Transaction as Tx } from 'kysely'
import { deriveUlid } from '../catalog/model.ts'
import type { Database } from '../database.ts'
import type { TransactionPipelineStep } from '../ledger/transactions/pipeline.ts'
import { idList } from '../shared/id-list.ts'
import { CategoryModel, type LabelledSubject } from './category-model.ts'

/** The model learns from the household's most recent categorized rows, at most this many. */
export const TRAINING_ROWS = 2000
/** Below this many categorized rows the model says nothing. */
export const MIN_TRAINING_ROWS = 5
/** A guess below this share of the posterior is not offered. */
export const MIN_CONFIDENCE = 0.5

/**
 * The household's model, trained on its most recent categorized live rows (unsplit, normal
 * kind, in a live category), newest first by date then id, so the same store trains the same
 * model on every replica.
 */
export async function trainCategoryModel(tx: Tx<Database>, householdId: string): Promise<CategoryModel> {
  return new CategoryModel(await trainingRows(tx, householdId))
}

/** Trained models kept, by household and generation (most recently used last): at most this many. */
const KEPT_MODELS = 16
const keptModels = new Map<string, CategoryModel>()

/**
 * The household's model as `trainCategoryModel` would train it now, trained once per generation
 * of what it learns from (migration 0048: triggers replace a household's random generation id
 * whenever its categorized rows, live categories or payees' names may have changed), so adding
 * a row does not train it again. A model is kept only under an id that committed data carries:
 * not while this transaction has changed the household's inputs itself (it may yet roll back),
 * and only if the id was the same before and after the training's reads (on PostgreSQL another
 * transaction may commit between two statements). Ids are random, so two stores in one process
 * never share one, and an id a rolled-back transaction wrote never comes back.
 */
export async function householdCategoryModel(tx: Tx<Database>, householdId: string): Promise<CategoryModel> {
  const key = await generationKey(tx, householdId)
  const kept = key === null ? undefined : keptModels.get(key)
  if (kept) {
    keptModels.delete(key!)
    keptModels.set(key!, kept)
    return kept
  }
  const model = await trainCategoryModel(tx, householdId)
  if (key !== null && (await generationKey(tx, householdId)) === key) {
    keptModels.set(key, model)
    if (keptModels.size > KEPT_MODELS) keptModels.delete(keptModels.keys().next().value!)
  }
  return model
}

/**
 * `<household>:<generation>`, or null when the household has no generation yet or this
 * transaction changed what its model learns from (the triggers name it in `hearth.suggestion_inputs`).
 */
async function generationKey(tx: Tx<Database>, householdId: string): Promise<string | null> {
  const row = await tx
    .selectFrom('suggestion_generations')
    .select([
      sql<string>`generation::text`.as('generation'),
      sql<boolean>`strpos(coalesce(current_setting('hearth.suggestion_inputs', true), ''), ',' || household_id || ',') > 0`.as(
        'changed',
      ),
    ])
    .where('household_id', '=', householdId)
    .executeTakeFirst()
  return row && !row.changed ? `${householdId}:${row.generation}` : null
}

/** The household's live categories that sit in an income group: where money coming in goes. */
export async function incomeCategoryIds(tx: Tx<Database>, householdId: string): Promise<Set<string>> {
  const rows = await tx
    .selectFrom('categories as c')
    .innerJoin('category_groups as g', (j) =>
      j.onRef('g.household_id', '=', 'c.household_id').onRef('g.id', '=', 'c.group_id'),
    )
    .select('c.id')
    .where('c.household_id', '=', householdId)
    .where('g.is_income', '=', true)
    .execute()
  return new Set(rows.map((r) => r.id))
}

/**
 * Whether a category suits a row's direction: money going out never lands in an income category,
 * money coming in only in one (a zero amount takes either).
 */
export function suitsDirection(amountCents: number, isIncome: boolean): boolean {
  if (amountCents < 0) return !isIncome
  if (amountCents > 0) return isIncome
  return true
}

/**
 * The rows `trainCategoryModel` learns from. Three plain reads (rows through the list index,
 * then the live categories and the payees' names) rather than one join: the join made
 * PostgreSQL sort the household's rows instead of walking the index.
 */
export async function trainingRows(tx: Tx<Database>, householdId: string): Promise<LabelledSubject[]> {
  const rows = await tx
    .selectFrom('transactions')
    .select(['payee_id', 'memo', 'amount_cents', 'account_id', 'category_id'])
    .where('household_id', '=', householdId)
    .where('deleted_at', 'is', null)
    .where('merged_into_id', 'is', null)
    .where('category_id', 'is not', null)
    .where('kind', '=', 'normal')
    .orderBy('date', 'desc')
    .orderBy('id', 'desc')
    .limit(TRAINING_ROWS)
    .execute()
  if (rows.length === 0) return []
  const live = new Set(
    (
      await tx
        .selectFrom('categories')
        .select('id')
        .where('household_id', '=', householdId)
        .where('deleted_at', 'is', null)
        .execute()
    ).map((c) => c.id),
  )
  const payeeIds = [...new Set(rows.flatMap((r) => (r.payee_id ? [r.payee_id] : [])))]
  const names = new Map<string, string>()
  if (payeeIds.length > 0) {
    for (const p of await tx
      .selectFrom('payees')
      .select(['id', 'normalized_name'])
      .where('household_id', '=', householdId)
      .where('id', '=', idList(payeeIds))
      .execute())
      names.set(p.id, p.normalized_name)
  }
  return rows
    .filter((r) => live.has(r.category_id!))
    .map((r) => ({
      categoryId: r.category_id!,
      payeeId: r.payee_id,
      payeeName: r.payee_id ? (names.get(r.payee_id) ?? null) : null,
      memo: r.memo,
      amountCents: Number(r.amount_cents),
      accountId: r.account_id,
    }))
}

/** The id of a payee's rejection of a category: derived, so two devices meet on one row. */
export function rejectionId(payeeId: string, categoryId: string): string {
  return deriveUlid(payeeId, `reject:${categoryId}`)
}

/**
 * Suggests a category for new uncategorized rows (create and bulk import), from the household's
 * own categorized rows; runs after the rules, so a rule's category wins. A category rejected for
 * the row's payee is never suggested for it. Remembers rejections as they happen.
 */
export const categorySuggestionStep: TransactionPipelineStep = {
  name: 'payees.suggestCategory',
  async drafted(tx, drafts, ctx) {
    const open = drafts.filter(
      (d) =>
        d.row.category_id == null &&
        d.row.suggested_category_id == null &&
        d.splits.length === 0 &&
        (d.row.kind ?? 'normal') === 'normal' &&
        d.row.status !== 'reconciled',
    )
    if (open.length === 0) return
    const model = await householdCategoryModel(tx, ctx.householdId)
    if (model.size < MIN_TRAINING_ROWS) return
    const payeeIds = [...new Set(open.flatMap((d) => (d.row.payee_id ? [d.row.payee_id] : [])))]
    const names = new Map<string, string>()
    const rejected = new Set<string>()
    if (payeeIds.length > 0) {
      for (const p of await tx
        .selectFrom('payees')
        .select(['id', 'normalized_name'])
        .where('household_id', '=', ctx.householdId)
        .where('id', '=', idList(payeeIds))
        .execute())
        names.set(p.id, p.normalized_name)
      for (const r of await tx
        .selectFrom('payee_category_rejections')
        .select(['payee_id', 'category_id'])
        .where('household_id', '=', ctx.householdId)
        .where('payee_id', '=', idList(payeeIds))
        .execute())
        rejected.add(`${r.payee_id}:${r.category_id}`)
    }
    const income = await incomeCategoryIds(tx, ctx.householdId)
    const reason = `Learned from ${model.size} categorized rows of this household (payee, memo words, amount and account).`
    for (const d of open) {
      const payeeId = d.row.payee_id ?? null
      const amountCents = Number(d.row.amount_cents)
      const guess = model.guess(
        {
          payeeId,
          payeeName: payeeId ? (names.get(payeeId) ?? null) : null,
          memo: d.row.memo ?? null,
          amountCents,
          accountId: d.row.account_id,
        },
        (categoryId) =>
          suitsDirection(amountCents, income.has(categoryId)) &&
          (payeeId === null || !rejected.has(`${payeeId}:${categoryId}`)),
      )
      if (!guess || guess.confidence < MIN_CONFIDENCE) continue
      d.row.suggested_category_id = guess.categoryId
      d.row.suggestion_confidence = guess.confidence
      d.row.suggestion_reason = reason
    }
  },
  async suggestionRejected(tx, row, ctx) {
    if (!row.payee_id || !row.suggested_category_id) return
    await tx
      .insertInto('payee_category_rejections')
      .values({
        household_id: ctx.householdId,
        id: rejectionId(row.payee_id, row.suggested_category_id),
        payee_id: row.payee_id,
        category_id: row.suggested_category_id,
        created_at: ctx.now,
      })
      .onConflict((oc) => oc.columns(['household_id', 'id']).doNothing())
      .execute()
  },
}
