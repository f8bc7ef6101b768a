import type { Transaction as Tx } from 'kysely'
import {
  createPayeesByName,
  deriveUlid,
  findOrCreatePayeeByName,
  findPayeeByName,
  normalizePayeeName,
} from '../../catalog/index.ts'
import type { Database } from '../../database.ts'
import { conflict, EngineError } from '../../errors.ts'
import type { MutationContext } from '../../mutator/context.ts'
import { idList } from '../../shared/id-list.ts'
import { type ReferenceUse, requireOpenAccount, requireReferences } from '../references.ts'
import type { AccountRow } from '../tables.ts'
import { checkSplits, type RowAt } from './errors.ts'
import { type LedgerHooks, payeesForImports, payeesForNames } from './pipeline.ts'
import type { TransactionInput } from './schema.ts'
import type { SplitDraft, TransactionDraft } from './writes.ts'

/** A new row from a request, with where it sits in that request. */
export interface LocatedInput {
  input: TransactionInput
  at: RowAt
}

/** Every id a new row refers to, each with its request path. */
export function referencesOf({ input, at }: LocatedInput): ReferenceUse[] {
  const p = at.prefix
  const index = at.index
  const uses: ReferenceUse[] = [{ table: 'accounts', id: input.accountId, path: `${p}accountId`, index }]
  if (input.categoryId)
    uses.push({ table: 'categories', id: input.categoryId, path: `${p}categoryId`, index })
  if (input.payeeId) uses.push({ table: 'payees', id: input.payeeId, path: `${p}payeeId`, index })
  ;(input.splits ?? []).forEach((s, i) => {
    if (s.categoryId)
      uses.push({ table: 'categories', id: s.categoryId, path: `${p}splits.${i}.categoryId`, index })
    if (s.payeeId) uses.push({ table: 'payees', id: s.payeeId, path: `${p}splits.${i}.payeeId`, index })
  })
  ;(input.tagIds ?? []).forEach((id, i) => {
    uses.push({ table: 'tags', id, path: `${p}tagIds.${i}`, index })
  })
  ;(input.flagIds ?? []).forEach((id, i) => {
    uses.push({ table: 'flags', id, path: `${p}flagIds.${i}`, index })
  })
  return uses
}

/**
 * The payee id a payee name resolves to: a live payee of that normalized name, else the payee
 * a pipeline step knows the spelling for (an alias), else a new payee, created once per
 * distinct normalized name.
 */
export class PayeeResolver {
  private readonly byName = new Map<string, string>()
  /** Spellings the pipeline's steps were already asked about. */
  private readonly asked = new Set<string>()

  constructor(
    private readonly tx: Tx<Database>,
    private readonly ctx: MutationContext,
    private readonly hooks?: LedgerHooks,
  ) {}

  /** Asks the pipeline's steps about spellings no live payee bears, once each. */
  private async askSteps(names: readonly string[]): Promise<void> {
    const wanted = names.filter((n) => !this.byName.has(n) && !this.asked.has(n))
    for (const n of wanted) this.asked.add(n)
    if (!this.hooks || wanted.length === 0) return
    for (const [name, payeeId] of await payeesForNames(this.hooks, this.tx, wanted, this.ctx)) {
      this.byName.set(name, payeeId)
    }
  }

  /** Looks up many names in one query, so a bulk import does not ask once per row. */
  async preload(names: readonly string[]): Promise<void> {
    const wanted = [...new Set(names.map(normalizePayeeName))].filter((n) => !this.byName.has(n))
    if (wanted.length === 0) return
    const rows = await this.tx
      .selectFrom('payees')
      .select(['id', 'normalized_name'])
      .where('household_id', '=', this.ctx.householdId)
      .where('normalized_name', '=', idList(wanted))
      .where('deleted_at', 'is', null)
      .orderBy('created_at')
      .orderBy('id')
      .execute()
    // Oldest first, as findOrCreatePayeeByName picks.
    for (const row of rows)
      if (!this.byName.has(row.normalized_name)) this.byName.set(row.normalized_name, row.id)
    await this.askSteps(wanted)
  }

  /**
   * Makes, in one statement, the payees that names no live payee bears and no step knows would
   * make one by one through `resolve`: the first row naming each normalized form decides its id
   * and spelling, as it would have. Call after `preload` with the same names.
   */
  async createMissing(named: readonly { name: string; rowId: string }[]): Promise<void> {
    const wanted = new Map<string, { name: string; newId: string }>()
    for (const { name, rowId } of named) {
      const normalized = normalizePayeeName(name)
      if (this.byName.has(normalized) || wanted.has(normalized) || !this.asked.has(normalized)) continue
      wanted.set(normalized, { name, newId: deriveUlid(rowId, `payee:${normalized}`) })
    }
    const created = await createPayeesByName(
      this.tx,
      this.ctx.householdId,
      [...wanted.values()],
      this.ctx.now,
    )
    for (const payee of created) {
      this.ctx.emit('payee.created', { payee })
      this.byName.set(payee.normalizedName, payee.id)
    }
  }

  async resolve(name: string, rowId: string): Promise<string> {
    const normalized = normalizePayeeName(name)
    if (!this.byName.has(normalized) && !this.asked.has(normalized)) {
      const live = await findPayeeByName(this.tx, this.ctx.householdId, name)
      if (live) this.byName.set(normalized, live.id)
      else await this.askSteps([normalized])
    }
    const known = this.byName.get(normalized)
    if (known) return known
    // Salted with the name, so renaming a row's payee twice never derives the same new id.
    const newId = deriveUlid(rowId, `payee:${normalized}`)
    const { payee, created } = await findOrCreatePayeeByName(
      this.tx,
      this.ctx.householdId,
      name,
      newId,
      this.ctx.now,
    )
    if (created) this.ctx.emit('payee.created', { payee })
    this.byName.set(normalized, payee.id)
    return payee.id
  }
}

/**
 * Validates new rows and turns them into drafts ready to insert: split shape first, then
 * every reference in one query per table, open accounts, free ids, and payee names last
 * (creating a payee is the only write here, so a refusal above leaves nothing behind).
 */
export async function buildDrafts(
  tx: Tx<Database>,
  ctx: MutationContext,
  items: readonly LocatedInput[],
  hooks?: LedgerHooks,
): Promise<{ drafts: TransactionDraft[]; accounts: Map<string, AccountRow> }> {
  for (const { input, at } of items) checkSplits(at, input.amountCents, input.categoryId, input.splits ?? [])
  const accounts = await requireReferences(tx, ctx.householdId, items.flatMap(referencesOf))
  for (const { input, at } of items)
    requireOpenAccount(accounts.get(input.accountId)!, `${at.prefix}accountId`, at.index)
  await requireFreeIds(tx, ctx.householdId, items)
  const decided = hooks ? await preStagePayees(hooks, tx, ctx, items) : new Map<string, string>()
  const payees = new PayeeResolver(tx, ctx, hooks)
  const named = items.flatMap(({ input }) =>
    input.payeeName !== undefined && !decided.has(input.id)
      ? [{ name: input.payeeName, rowId: input.id }]
      : [],
  )
  await payees.preload(named.map((n) => n.name))
  await payees.createMissing(named)
  const drafts: TransactionDraft[] = []
  for (const { input } of items) {
    const payeeId =
      decided.get(input.id) ??
      (input.payeeName !== undefined ? await payees.resolve(input.payeeName, input.id) : input.payeeId)
    drafts.push(draftOf(ctx, input, payeeId ?? null))
  }
  return { drafts, accounts }
}

/** Asks the pre-stage about imported rows named by the bank's text, before that text makes a payee. */
function preStagePayees(
  hooks: LedgerHooks,
  tx: Tx<Database>,
  ctx: MutationContext,
  items: readonly LocatedInput[],
): Promise<Map<string, string>> {
  const rows = items.flatMap(({ input }) => {
    const source = input.source ?? (input.importedId ? 'imported' : 'manual')
    if (source !== 'imported' || input.payeeName === undefined || (input.splits ?? []).length > 0) return []
    return [
      {
        id: input.id,
        accountId: input.accountId,
        date: input.date,
        amountCents: input.amountCents,
        payeeText: input.importedPayee ?? input.payeeName,
        memo: input.memo ?? null,
        categoryId: input.categoryId ?? null,
      },
    ]
  })
  if (rows.length === 0) return Promise.resolve(new Map())
  return payeesForImports(hooks, tx, rows, ctx)
}

function draftOf(ctx: MutationContext, input: TransactionInput, payeeId: string | null): TransactionDraft {
  const source = input.source ?? (input.importedId ? 'imported' : 'manual')
  const splits: SplitDraft[] = (input.splits ?? []).map((s) => ({
    amountCents: s.amountCents,
    categoryId: s.categoryId ?? null,
    payeeId: s.payeeId ?? null,
    memo: s.memo ?? null,
  }))
  return {
    row: {
      household_id: ctx.householdId,
      id: input.id,
      account_id: input.accountId,
      date: input.date,
      amount_cents: input.amountCents,
      payee_id: payeeId,
      category_id: input.categoryId ?? null,
      memo: input.memo ?? null,
      status: input.status ?? (source === 'imported' ? 'cleared' : 'pending'),
      source,
      kind: 'normal',
      imported_id: input.importedId ?? null,
      imported_payee: input.importedPayee ?? (source === 'imported' ? (input.payeeName ?? null) : null),
      transfer_group_id: null,
      needs_review: input.needsReview ?? false,
      suggested_category_id: null,
      suggestion_confidence: null,
      suggestion_reason: null,
      possible_duplicate: false,
      matched_transaction_id: null,
      merged_into_id: null,
      prematch_date: null,
      prematch_status: null,
      created_at: ctx.now,
      updated_at: ctx.now,
    },
    splits,
    tagIds: input.tagIds ?? [],
    flagIds: input.flagIds ?? [],
  }
}

/** New ids must be distinct within the request (400) and unused in the household, deleted rows included (409). */
async function requireFreeIds(
  tx: Tx<Database>,
  householdId: string,
  items: readonly LocatedInput[],
): Promise<void> {
  const seen = new Set<string>()
  for (const { input, at } of items) {
    if (seen.has(input.id)) {
      throw new EngineError(400, 'DUPLICATE_ID', `The id ${input.id} appears twice in the request.`, {
        errors: [{ path: `${at.prefix}id`, message: 'Repeated id.', code: 'duplicate' }],
        extra: at.index === undefined ? {} : { index: at.index },
      })
    }
    seen.add(input.id)
  }
  if (seen.size === 0) return
  const taken = await tx
    .selectFrom('transactions')
    .select('id')
    .where('household_id', '=', householdId)
    .where('id', '=', idList([...seen]))
    .execute()
  if (taken.length === 0) return
  const takenIds = new Set(taken.map((r) => r.id))
  const first = items.find((i) => takenIds.has(i.input.id))!
  throw conflict('ID_ALREADY_EXISTS', `The id ${first.input.id} is already in use.`, {
    id: first.input.id,
    path: `${first.at.prefix}id`,
    ...(first.at.index === undefined ? {} : { index: first.at.index }),
  })
}

/** Marks accounts that just received an imported row as bank-fed. */
export async function markBankFed(
  tx: Tx<Database>,
  householdId: string,
  drafts: readonly TransactionDraft[],
  now: Date,
): Promise<void> {
  const ids = [...new Set(drafts.filter((d) => d.row.source === 'imported').map((d) => d.row.account_id))]
  if (ids.length === 0) return
  await tx
    .updateTable('accounts')
    .set({ bank_fed: true, updated_at: now })
    .where('household_id', '=', householdId)
    .where('id', 'in', ids)
    .where('bank_fed', '=', false)
    .execute()
}
