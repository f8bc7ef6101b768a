import { RE2JS } from 're2js'
import type { TransactionPipelineStep } from '../ledger/transactions/pipeline.ts'
import type { AliasMatch } from './tables.ts'

/** A live pattern alias of a live payee, ready to test names. */
interface PatternAlias {
  payeeId: string
  test: (normalizedName: string) => boolean
}

/**
 * Compiles a pattern alias. Starts-with and contains compare normalized forms in whole words
 * ("shell" starts "shell 5521 oil", not "shellfish shack"); a regex runs on RE2, ignoring case.
 */
export function aliasTest(match: Exclude<AliasMatch, 'exact'>, pattern: string): (name: string) => boolean {
  if (match === 'startsWith') return (name) => name === pattern || name.startsWith(`${pattern} `)
  if (match === 'contains') return (name) => ` ${name} `.includes(` ${pattern} `)
  const re = RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE)
  return (name) => re.test(name)
}

/**
 * Attributes a transaction named by an alias to the alias's payee: when a created, imported or
 * updated row's `payeeName` matches no live payee, a live exact alias with that normalized form
 * decides the payee, else the oldest live pattern alias (starts with, contains, regex) the
 * normalized name matches, instead of a new payee being made.
 */
export const payeeAliasStep: TransactionPipelineStep = {
  name: 'payees.aliases',
  async payeesForNames(tx, normalizedNames, ctx) {
    const rows = await tx
      .selectFrom('payee_aliases as a')
      .innerJoin('payees as p', (j) =>
        j.onRef('p.household_id', '=', 'a.household_id').onRef('p.id', '=', 'a.payee_id'),
      )
      .select(['a.normalized_name', 'a.payee_id', 'a.match'])
      .where('a.household_id', '=', ctx.householdId)
      .where((eb) => eb.or([eb('a.normalized_name', 'in', normalizedNames), eb('a.match', '!=', 'exact')]))
      .where('a.deleted_at', 'is', null)
      .where('p.deleted_at', 'is', null)
      .orderBy('a.created_at')
      .orderBy('a.id')
      .execute()
    const found = new Map<string, string>()
    const patterns: PatternAlias[] = []
    for (const row of rows) {
      if (row.match === 'exact') {
        if (!found.has(row.normalized_name)) found.set(row.normalized_name, row.payee_id)
      } else patterns.push({ payeeId: row.payee_id, test: aliasTest(row.match, row.normalized_name) })
    }
    if (patterns.length === 0) return found
    for (const name of normalizedNames) {
      if (found.has(name)) continue
      const hit = patterns.find((p) => p.test(name))
      if (hit) found.set(name, hit.payeeId)
    }
    return found
  },
}
