import { sql, type Transaction } from 'kysely'
import type { Database } from '../database.ts'
import { conflict, EngineError, invalid, notFound } from '../errors.ts'
import type { HouseholdContext, MutationContext } from '../mutator/context.ts'
import { PAYMENT_GROUP_NAME } from './flows.ts'
import { addCell, checkOverruns } from './overrun.ts'
import type { BudgetHistoryKind } from './tables.ts'

type Tx = Transaction<Database>

/** The most a cell may hold either way, as for any amount a request may carry. */
export const MAX_ASSIGNED_CENTS = 9_000_000_000_000

/** The id of a budget cell: the same on every device for one month and category. */
export function cellId(month: string, categoryId: string): string {
  return `${month}:${categoryId}`
}

/**
 * The id of the first history entry a change writes: the one it was given, else the syncing
 * device's id and mutation id (the same on the device and on the server).
 */
export function historyBase(historyId: string | undefined, ctx: HouseholdContext): string {
  if (historyId) return historyId
  if (ctx.clientId && ctx.mutationId !== undefined) return `${ctx.clientId}:${ctx.mutationId}`
  throw invalid(
    'HISTORY_ID_REQUIRED',
    'Give historyId, a ULID naming the history entry this change writes.',
    [{ path: 'historyId', message: 'Required outside a syncing device.' }],
  )
}

/**
 * A category money may be assigned to: a live spending or payment category, or a credit
 * account's payment category, made on first use (id = the account's id, in the group whose id
 * is the household's, so every device makes the same rows). Income categories are refused.
 */
export async function requireBudgetCategory(
  tx: Tx,
  ctx: HouseholdContext,
  id: string,
  path: string,
): Promise<void> {
  const rows = await sql<{ deleted: boolean; is_income: boolean; payment_account_id: string | null }>`
    select c.deleted_at is not null as deleted, g.is_income, c.payment_account_id
    from categories c join category_groups g on g.household_id = c.household_id and g.id = c.group_id
    where c.household_id = ${ctx.householdId} and c.id = ${id}`.execute(tx)
  const row = rows.rows[0]
  if (row && !row.deleted) {
    if (row.is_income && row.payment_account_id === null) {
      throw new EngineError(
        400,
        'BUDGET_INCOME_CATEGORY',
        'Income categories feed Ready to Assign; money is not assigned to them.',
        {
          errors: [{ path, message: 'An income category.' }],
        },
      )
    }
    return
  }
  const card = await tx
    .selectFrom('accounts as a')
    .innerJoin('households as h', 'h.id', 'a.household_id')
    .select(['a.id', 'a.name', 'a.position'])
    .where('a.household_id', '=', ctx.householdId)
    .where('a.id', '=', id)
    .where('a.type', '=', 'credit')
    .where('a.deleted_at', 'is', null)
    .whereRef('a.currency', '=', 'h.base_currency')
    .executeTakeFirst()
  if (!card || (row && row.payment_account_id !== card.id)) throw notFound('Category', id)
  await ensurePaymentCategory(tx, ctx, card)
}

/** Makes (or brings back) a card's payment category and the group that holds them. */
export async function ensurePaymentCategory(
  tx: Tx,
  ctx: HouseholdContext,
  card: { id: string; name: string; position: number },
): Promise<void> {
  await sql`
    insert into category_groups (household_id, id, name, position, created_at, updated_at)
    values (${ctx.householdId}, ${ctx.householdId}, ${PAYMENT_GROUP_NAME},
            (select coalesce(max(position) + 1, 0) from category_groups where household_id = ${ctx.householdId} and deleted_at is null),
            ${ctx.now}, ${ctx.now})
    on conflict (household_id, id) do update set deleted_at = null, updated_at = excluded.updated_at
    where category_groups.deleted_at is not null`.execute(tx)
  await sql`
    insert into categories (household_id, id, group_id, name, position, payment_account_id, created_at, updated_at)
    values (${ctx.householdId}, ${card.id}, ${ctx.householdId}, ${card.name}, ${card.position}, ${card.id}, ${ctx.now}, ${ctx.now})
    on conflict (household_id, id) do update set deleted_at = null, updated_at = excluded.updated_at
    where categories.deleted_at is not null`.execute(tx)
}

/** What a cell holds now; 0 when it has no row. */
export async function assignedOf(
  tx: Tx,
  householdId: string,
  month: string,
  categoryId: string,
): Promise<number> {
  const row = await tx
    .selectFrom('budget_cells')
    .select('assigned_cents')
    .where('household_id', '=', householdId)
    .where('id', '=', cellId(month, categoryId))
    .executeTakeFirst()
  return row?.assigned_cents ?? 0
}

/** One cell change: sets the cell and writes its history entry; nothing when the amount is unchanged and `always` is off. */
export interface CellChange {
  month: string
  categoryId: string
  assignedCents: number
  historyId: string
  kind: BudgetHistoryKind
  counterpartCategoryId?: string | null
  /** Write the history entry even when the amount does not change (an explicit assign). */
  always?: boolean
}

/** Sets cells to new amounts and records each change in the history, in the caller's transaction. */
export async function writeCells(
  tx: Tx,
  ctx: MutationContext,
  changes: readonly CellChange[],
): Promise<void> {
  const touched = new Map<string, Set<string>>()
  const raised: CellChange[] = []
  for (const change of changes) {
    if (Math.abs(change.assignedCents) > MAX_ASSIGNED_CENTS) {
      throw invalid(
        'BUDGET_AMOUNT_OUT_OF_RANGE',
        'A category can hold at most 9,000,000,000,000 cents either way.',
        [{ path: 'assignedCents', message: `Would be ${change.assignedCents}.` }],
      )
    }
    // One statement reads the cell, sets it and writes its history entry, when the amount
    // changes or the change is explicit.
    const id = cellId(change.month, change.categoryId)
    const { rows } = await sql<{ previous: string; written: boolean }>`
      with previous as (
        select coalesce((select assigned_cents from budget_cells where household_id = ${ctx.householdId} and id = ${id}), 0)
          as cents
      ),
      cell as (
        insert into budget_cells (household_id, id, month, category_id, assigned_cents, created_at, updated_at)
        select ${ctx.householdId}, ${id}, ${change.month}, ${change.categoryId}, ${change.assignedCents}::bigint,
               ${ctx.now}::timestamptz, ${ctx.now}::timestamptz
        from previous where ${change.always === true}::boolean or cents <> ${change.assignedCents}::bigint
        on conflict (household_id, id) do update set assigned_cents = excluded.assigned_cents, updated_at = excluded.updated_at
        returning 1
      ),
      history as (
        insert into budget_history (household_id, id, month, category_id, kind, previous_cents, assigned_cents,
                                    delta_cents, counterpart_category_id, user_id, created_at)
        select ${ctx.householdId}, ${change.historyId}, ${change.month}, ${change.categoryId}, ${change.kind}, cents,
               ${change.assignedCents}::bigint, ${change.assignedCents}::bigint - cents,
               ${change.counterpartCategoryId ?? null}::text, ${ctx.userId || null}::text, ${ctx.now}::timestamptz
        from previous where ${change.always === true}::boolean or cents <> ${change.assignedCents}::bigint
        on conflict (household_id, id) do nothing
        returning 1
      )
      select cents::text as previous, exists (select 1 from history) as written from previous`.execute(tx)
    const previous = Number(rows[0]!.previous)
    if (previous === change.assignedCents && !change.always) continue
    // The whole change rolls back with the refusal.
    if (!rows[0]!.written)
      throw conflict('ID_ALREADY_EXISTS', `The id ${change.historyId} is already in use.`, {
        id: change.historyId,
      })
    // Less assigned may overrun the category; more may end an overrun announced before.
    if (change.assignedCents < previous) addCell(touched, change.month, change.categoryId)
    else if (change.assignedCents > previous) raised.push(change)
  }
  if (raised.length > 0) {
    const announced = await tx
      .selectFrom('budget_overruns')
      .select(['month', 'category_id'])
      .where('household_id', '=', ctx.householdId)
      .where(
        'id',
        'in',
        raised.map((c) => `${c.month}:${c.categoryId}`),
      )
      .execute()
    for (const a of announced) addCell(touched, a.month, a.category_id)
  }
  await checkOverruns(tx, ctx, touched, { withAnnounced: false })
}
