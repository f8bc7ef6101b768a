import type { TransactionPipelineStep } from '../ledger/transactions/pipeline.ts'

/**
 * Attributes a transaction named by an alias's spelling to the alias's payee: when a created,
 * imported or updated row's `payeeName` matches no live payee, a live alias of a live payee
 * with that normalized form decides the payee instead of a new one being made.
 */
export const payeeAliasStep: TransactionPipelineStep = {
  name: 'payees.aliases',
  async payeesForNames(tx, normalizedNames, ctx) {
    const rows = await tx
      .selectFrom('payee_aliases as a')
      .innerJoin('payees as p', (j) =>
        j.onRef('p.household_id', '=', 'a.household_id').onRef('p.id', '=', 'a.payee_id'),
      )
      .select(['a.normalized_name', 'a.payee_id'])
      .where('a.household_id', '=', ctx.householdId)
      .where('a.normalized_name', 'in', normalizedNames)
      .where('a.deleted_at', 'is', null)
      .where('p.deleted_at', 'is', null)
      .orderBy('a.created_at')
      .orderBy('a.id')
      .execute()
    const found = new Map<string, string>()
    for (const row of rows) if (!found.has(row.normalized_name)) found.set(row.normalized_name, row.payee_id)
    return found
  },
}
