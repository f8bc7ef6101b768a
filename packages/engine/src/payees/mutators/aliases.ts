import { requirePayee } from '../../catalog/lookups.ts'
import { normalizePayeeName, toPayee } from '../../catalog/model.ts'
import { conflict } from '../../errors.ts'
import { defineMutator } from '../../mutator/define.ts'
import { assertAliasIdFree, assertSpellingFree, findAliasByNormalized, requireAlias } from '../lookups.ts'
import { type PayeeAlias, toPayeeAlias } from '../model.ts'
import { CreatePayeeAliasArgsSchema, DeletePayeeAliasArgsSchema } from '../schema.ts'

/**
 * Adds a spelling or a pattern to a live payee; a household's live aliases of one kind of match
 * differ in normalized form (a regex in its own text), and no exact alias equals a live payee's
 * name. Adding one the payee already has answers that alias; another payee's is a 409.
 */
export const createPayeeAlias = defineMutator({
  audience: 'device',
  description: 'Adds an alias to a live payee; a spelling it already has answers the existing alias.',
  scope: 'write:payees',
  args: CreatePayeeAliasArgsSchema,
  async run(tx, args, ctx): Promise<PayeeAlias> {
    const payee = await requirePayee(tx, ctx.householdId, args.payeeId)
    const normalized = args.match === 'regex' ? args.name : normalizePayeeName(args.name)
    if (args.match === 'exact') await assertSpellingFree(tx, ctx.householdId, args.name, payee.id)
    const existing = await findAliasByNormalized(tx, ctx.householdId, normalized, args.match)
    if (existing && existing.payee_id !== payee.id) {
      throw conflict('PAYEE_ALIAS_TAKEN', `"${args.name}" is already an alias of another payee.`, {
        payeeId: existing.payee_id,
        aliasId: existing.id,
      })
    }
    if (existing) return toPayeeAlias(existing)
    await assertAliasIdFree(tx, ctx.householdId, args.id)
    const row = await tx
      .insertInto('payee_aliases')
      .values({
        household_id: ctx.householdId,
        id: args.id,
        payee_id: payee.id,
        name: args.name,
        normalized_name: normalized,
        match: args.match,
        created_at: ctx.now,
        updated_at: ctx.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    ctx.emit('payee.updated', { payee: toPayee(payee), changes: ['aliases'] })
    return toPayeeAlias(row)
  },
})

/** Soft-deletes one live alias of a live payee; transactions it attributed keep their payee. */
export const deletePayeeAlias = defineMutator({
  audience: 'device',
  description: 'Removes an alias from a live payee; transactions it attributed keep their payee.',
  scope: 'write:payees',
  args: DeletePayeeAliasArgsSchema,
  async run(tx, args, ctx): Promise<{ id: string }> {
    const payee = await requirePayee(tx, ctx.householdId, args.payeeId)
    await requireAlias(tx, ctx.householdId, payee.id, args.id)
    await tx
      .updateTable('payee_aliases')
      .set({ deleted_at: ctx.now, updated_at: ctx.now })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .execute()
    ctx.emit('payee.updated', { payee: toPayee(payee), changes: ['aliases'] })
    return { id: args.id }
  },
})
