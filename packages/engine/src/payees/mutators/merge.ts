import type { Transaction as Tx } from 'kysely'
import { requirePayee } from '../../catalog/lookups.ts'
import { deriveUlid, toPayee } from '../../catalog/model.ts'
import type { Database } from '../../database.ts'
import { conflict, invalid, notFound } from '../../errors.ts'
import { defineMutator } from '../../mutator/define.ts'
import { repointRules, restoreRules } from '../../rules/payee-references.ts'
import { type PayeeMerge, toPayeeMerge } from '../model.ts'
import { aliasesOf } from '../queries.ts'
import { MergePayeeArgsSchema, PayeeIdArgsSchema } from '../schema.ts'
import type { PayeeMergeMoves } from '../tables.ts'

/** What a merge answers: the record of what moved, and the payee that now holds it all. */
export interface MergeResult {
  merge: PayeeMerge
  target: ReturnType<typeof toPayee>
}

/** What an unmerge answers: the undone record, the revived payee, and rows left where they were. */
export interface UnmergeResult {
  merge: PayeeMerge
  payee: ReturnType<typeof toPayee>
  /** Recorded transactions whose payee changed again after the merge; they stay as they are. */
  skippedTransactionIds: string[]
}

/** The id of the alias a merge makes from the source's name: derived, so every replica makes the same. */
export function mergeAliasId(mergeId: string): string {
  return deriveUlid(mergeId, 'alias')
}

async function targetOf(tx: Tx<Database>, householdId: string, id: string) {
  try {
    return await requirePayee(tx, householdId, id)
  } catch {
    throw notFound('Payee', id)
  }
}

/**
 * Merges a live payee into another: every transaction and split of the source (deleted rows
 * too) moves to the target, the source's aliases follow (one that spells the target's name is
 * dropped), the source's own name becomes an alias of the target, rules that name the source
 * (a payee condition, or the payee they set) name the target, and the source is soft-deleted.
 * The merge record lists exactly what moved, for `payees.unmerge`.
 */
export const mergePayee = defineMutator({
  audience: 'device',
  description:
    "Merges a payee into another: its transactions, splits and aliases move, and its name becomes the target's alias.",
  scope: 'write:payees',
  args: MergePayeeArgsSchema,
  async run(tx, args, ctx): Promise<MergeResult> {
    const h = ctx.householdId
    const source = await requirePayee(tx, h, args.id)
    if (args.targetPayeeId === source.id) {
      throw invalid('VALIDATION_FAILED', 'The request has invalid fields.', [
        { path: 'targetPayeeId', message: 'Must be another payee than the one merged.' },
      ])
    }
    const target = await targetOf(tx, h, args.targetPayeeId)
    const taken = await tx
      .selectFrom('payee_merges')
      .select('id')
      .where('household_id', '=', h)
      .where('id', '=', args.mergeId)
      .executeTakeFirst()
    if (taken)
      throw conflict('ID_ALREADY_EXISTS', `The id ${args.mergeId} is already in use.`, { id: args.mergeId })

    const transactions = await tx
      .selectFrom('transactions')
      .select(['id', 'updated_at'])
      .where('household_id', '=', h)
      .where('payee_id', '=', source.id)
      .orderBy('id')
      .execute()
    if (transactions.length > 0) {
      await tx
        .updateTable('transactions')
        .set({ payee_id: target.id, updated_at: ctx.now })
        .where('household_id', '=', h)
        .where('payee_id', '=', source.id)
        .execute()
    }
    const splits = await tx
      .updateTable('transaction_splits')
      .set({ payee_id: target.id })
      .where('household_id', '=', h)
      .where('payee_id', '=', source.id)
      .returning('id')
      .execute()

    // An alias is the same spelling only with the same way of matching ("starbucks" exact is not
    // "starbucks" as a prefix).
    const targetSpellings = new Set([
      `exact:${target.normalized_name}`,
      ...(await aliasesOf(tx, h, target.id)).map((a) => `${a.match}:${a.normalizedName}`),
    ])
    const moved: PayeeMergeMoves = {
      transactions: transactions.map((t) => ({ id: t.id, updatedAt: t.updated_at.toISOString() })),
      splits: splits.map((s) => s.id).sort(),
      aliases: [],
      droppedAliases: [],
      createdAliasId: null,
    }
    for (const alias of await aliasesOf(tx, h, source.id)) {
      const spelling = `${alias.match}:${alias.normalizedName}`
      const duplicate = targetSpellings.has(spelling)
      await tx
        .updateTable('payee_aliases')
        .set(
          duplicate
            ? { deleted_at: ctx.now, updated_at: ctx.now }
            : { payee_id: target.id, updated_at: ctx.now },
        )
        .where('household_id', '=', h)
        .where('id', '=', alias.id)
        .execute()
      ;(duplicate ? moved.droppedAliases : moved.aliases).push({ id: alias.id, updatedAt: alias.updatedAt })
      targetSpellings.add(spelling)
    }
    if (!targetSpellings.has(`exact:${source.normalized_name}`)) {
      moved.createdAliasId = mergeAliasId(args.mergeId)
      await tx
        .insertInto('payee_aliases')
        .values({
          household_id: h,
          id: moved.createdAliasId,
          payee_id: target.id,
          name: source.name,
          normalized_name: source.normalized_name,
          created_at: ctx.now,
          updated_at: ctx.now,
        })
        .execute()
    }

    moved.rules = await repointRules(tx, ctx, source.id, target.id)

    await tx
      .updateTable('payees')
      .set({ deleted_at: ctx.now, updated_at: ctx.now })
      .where('household_id', '=', h)
      .where('id', '=', source.id)
      .execute()
    const record = await tx
      .insertInto('payee_merges')
      .values({
        household_id: h,
        id: args.mergeId,
        source_payee_id: source.id,
        target_payee_id: target.id,
        moved: JSON.stringify(moved),
        source_updated_at: source.updated_at,
        created_at: ctx.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    const merge = toPayeeMerge(record)
    ctx.emit('payee.deleted', { id: source.id })
    ctx.emit('payee.merged', {
      mergeId: merge.id,
      sourcePayeeId: source.id,
      targetPayeeId: target.id,
      transactionIds: merge.transactionIds,
    })
    return { merge, target: toPayee(target) }
  },
})

/**
 * Undoes a payee's latest merge: the recorded transactions and splits that still point at the
 * target move back, the moved aliases return and the dropped ones revive, the alias made from
 * its name goes, rules the merge rewrote and nobody changed since are as they were, and the
 * payee is live again with its old `updated_at`. A row nobody touched
 * since the merge gets its old `updated_at` back too, so merge then unmerge leaves the rows as
 * they were.
 */
export const unmergePayee = defineMutator({
  audience: 'device',
  description:
    "Undoes a payee's latest merge: exactly the transactions that moved go back, and the payee is live again.",
  scope: 'write:payees',
  args: PayeeIdArgsSchema,
  async run(tx, args, ctx): Promise<UnmergeResult> {
    const h = ctx.householdId
    const source = await tx
      .selectFrom('payees')
      .selectAll()
      .where('household_id', '=', h)
      .where('id', '=', args.id)
      .executeTakeFirst()
    if (!source) throw notFound('Payee', args.id)
    const record = await tx
      .selectFrom('payee_merges')
      .selectAll()
      .where('household_id', '=', h)
      .where('source_payee_id', '=', source.id)
      .where('unmerged_at', 'is', null)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst()
    if (!record || source.deleted_at === null) {
      throw conflict(
        'PAYEE_NOT_MERGED',
        `Payee ${source.id} was not merged into another; there is nothing to undo.`,
      )
    }
    const target = await tx
      .selectFrom('payees')
      .select(['id', 'deleted_at'])
      .where('household_id', '=', h)
      .where('id', '=', record.target_payee_id)
      .executeTakeFirstOrThrow()
    if (target.deleted_at !== null) {
      throw conflict(
        'PAYEE_MERGE_CHAINED',
        `Payee ${target.id}, which ${source.id} was merged into, is itself merged or deleted; undo that first.`,
        { targetPayeeId: target.id },
      )
    }
    const clash = await tx
      .selectFrom('payees')
      .select(['id', 'name'])
      .where('household_id', '=', h)
      .where('normalized_name', '=', source.normalized_name)
      .where('deleted_at', 'is', null)
      .executeTakeFirst()
    if (clash) {
      throw conflict(
        'PAYEE_NAME_TAKEN',
        `A payee named "${clash.name}" exists now; rename it before the unmerge.`,
        {
          payeeId: clash.id,
        },
      )
    }
    const moved = (
      typeof record.moved === 'string' ? JSON.parse(record.moved) : record.moved
    ) as PayeeMergeMoves

    const current = moved.transactions.length
      ? await tx
          .selectFrom('transactions')
          .select(['id', 'payee_id', 'updated_at'])
          .where('household_id', '=', h)
          .where(
            'id',
            'in',
            moved.transactions.map((t) => t.id),
          )
          .execute()
      : []
    const now = new Map(current.map((r) => [r.id, r]))
    const skippedTransactionIds: string[] = []
    for (const t of moved.transactions) {
      const row = now.get(t.id)
      if (!row || row.payee_id !== target.id) {
        skippedTransactionIds.push(t.id)
        continue
      }
      const untouched = row.updated_at.getTime() === record.created_at.getTime()
      await tx
        .updateTable('transactions')
        .set({ payee_id: source.id, updated_at: untouched ? t.updatedAt : ctx.now })
        .where('household_id', '=', h)
        .where('id', '=', t.id)
        .execute()
    }
    if (moved.splits.length > 0) {
      await tx
        .updateTable('transaction_splits')
        .set({ payee_id: source.id })
        .where('household_id', '=', h)
        .where('id', 'in', moved.splits)
        .where('payee_id', '=', target.id)
        .execute()
    }
    for (const a of moved.aliases) {
      await tx
        .updateTable('payee_aliases')
        .set({ payee_id: source.id, updated_at: a.updatedAt })
        .where('household_id', '=', h)
        .where('id', '=', a.id)
        .where('payee_id', '=', target.id)
        .where('deleted_at', 'is', null)
        .execute()
    }
    for (const a of moved.droppedAliases) {
      await tx
        .updateTable('payee_aliases')
        .set({ deleted_at: null, updated_at: a.updatedAt })
        .where('household_id', '=', h)
        .where('id', '=', a.id)
        .execute()
    }
    if (moved.createdAliasId) {
      await tx
        .deleteFrom('payee_aliases')
        .where('household_id', '=', h)
        .where('id', '=', moved.createdAliasId)
        .execute()
    }
    await restoreRules(tx, ctx, moved.rules ?? [], record.created_at)
    const revived = await tx
      .updateTable('payees')
      .set({ deleted_at: null, updated_at: record.source_updated_at })
      .where('household_id', '=', h)
      .where('id', '=', source.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    const undone = await tx
      .updateTable('payee_merges')
      .set({ unmerged_at: ctx.now })
      .where('household_id', '=', h)
      .where('id', '=', record.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    const payee = toPayee(revived)
    const merge = toPayeeMerge(undone)
    ctx.emit('payee.created', { payee })
    ctx.emit('payee.unmerged', {
      mergeId: merge.id,
      sourcePayeeId: source.id,
      targetPayeeId: target.id,
      transactionIds: merge.transactionIds.filter((id) => !skippedTransactionIds.includes(id)),
    })
    return { merge, payee, skippedTransactionIds }
  },
})
