import { EngineError, type Scope } from '@hearth/engine'
import { READ_POLICY, type ReadPolicy } from '@hearth/engine/sync'

/** The read scope each synced table needs, from sync's read policy. */
const TABLE_SCOPES: ReadonlyMap<string, Scope> = new Map(
  Object.entries(READ_POLICY as ReadPolicy).flatMap(([table, rule]) =>
    'read' in rule && typeof rule.read === 'string' ? [[table, rule.read as Scope]] : [],
  ),
)

/**
 * The read scopes of synced data that `scopes` lacks, in policy order: the replica holds none of
 * those tables' rows, so what reads them would look empty rather than true.
 */
export function missingReadScopes(scopes: readonly Scope[]): Scope[] {
  return [...new Set(TABLE_SCOPES.values())].filter((s) => !scopes.includes(s))
}

/**
 * Refuses a result read from tables the key may not sync: `INSUFFICIENT_SCOPE` naming the first
 * scope missing, as REST answers a key without an operation's scope.
 */
export function assertReadable(tables: Iterable<string>, scopes: readonly Scope[]): void {
  for (const table of tables) {
    const scope = TABLE_SCOPES.get(table)
    if (scope && !scopes.includes(scope)) {
      throw new EngineError(
        403,
        'INSUFFICIENT_SCOPE',
        `This device's key lacks the scope ${scope}, so the replica holds none of the ${table} this query reads.`,
        { extra: { requiredScope: scope } },
      )
    }
  }
}
