import type { Transaction } from 'kysely'
import type { Database } from '../../database.ts'
import { conflict } from '../../errors.ts'
import { defineMutator } from '../../mutator/define.ts'
import { IdArgsSchema } from '../fields.ts'
import { findPayeeByName } from '../find-or-create-payee.ts'
import { assertIdFree, requireCategory, requirePayee } from '../lookups.ts'
import { normalizePayeeName, toPayee } from '../model.ts'
import { CreatePayeeArgsSchema, UpdatePayeeArgsSchema } from '../schema.ts'

/** Refuses a name whose normalized form another live payee already has. */
async function assertPayeeNameFree(
  tx: Transaction<Database>,
  householdId: string,
  name: string,
  selfId?: string,
) {
  const holder = await findPayeeByName(tx, householdId, name)
  if (holder && holder.id !== selfId) {
    throw conflict('PAYEE_NAME_TAKEN', `A payee named "${holder.name}" already exists.`, {
      payeeId: holder.id,
    })
  }
}

/** Creates a payee; no two live payees share a normalized name, and a default category must be live. */
export const createPayee = defineMutator({
  audience: 'device',
  description: 'Creates a payee.',
  scope: 'write:payees',
  args: CreatePayeeArgsSchema,
  async run(tx, args, ctx) {
    if (args.categoryId) await requireCategory(tx, ctx.householdId, args.categoryId)
    await assertIdFree(tx, 'payees', ctx.householdId, args.id)
    await assertPayeeNameFree(tx, ctx.householdId, args.name)
    const row = await tx
      .insertInto('payees')
      .values({
        household_id: ctx.householdId,
        id: args.id,
        name: args.name,
        normalized_name: normalizePayeeName(args.name),
        category_id: args.categoryId ?? null,
        created_at: ctx.now,
        updated_at: ctx.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    const payee = toPayee(row)
    ctx.emit('payee.created', { payee })
    return payee
  },
})

/** Renames a live payee (recomputing its normalized name) or sets its default category. */
export const updatePayee = defineMutator({
  audience: 'device',
  description: 'Renames a live payee (recomputing its normalized name) or sets its default category.',
  scope: 'write:payees',
  args: UpdatePayeeArgsSchema,
  async run(tx, args, ctx) {
    const { id, ...patch } = args
    await requirePayee(tx, ctx.householdId, id)
    if (patch.categoryId) await requireCategory(tx, ctx.householdId, patch.categoryId)
    if (patch.name !== undefined) await assertPayeeNameFree(tx, ctx.householdId, patch.name, id)
    const row = await tx
      .updateTable('payees')
      .set({
        ...(patch.name !== undefined && {
          name: patch.name,
          normalized_name: normalizePayeeName(patch.name),
        }),
        ...(patch.categoryId !== undefined && { category_id: patch.categoryId }),
        updated_at: ctx.now,
      })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow()
    const payee = toPayee(row)
    ctx.emit('payee.updated', { payee, changes: Object.keys(patch) })
    return payee
  },
})

/** Soft-deletes a live payee; transactions keep pointing at it, and its name becomes free again. */
export const deletePayee = defineMutator({
  audience: 'device',
  description: 'Soft-deletes a live payee.',
  scope: 'write:payees',
  args: IdArgsSchema,
  async run(tx, args, ctx) {
    await requirePayee(tx, ctx.householdId, args.id)
    await tx
      .updateTable('payees')
      .set({ deleted_at: ctx.now, updated_at: ctx.now })
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .execute()
    ctx.emit('payee.deleted', { id: args.id })
    return { id: args.id }
  },
})
