import type {
  KyselyPlugin,
  OperationNode,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely'

/**
 * Records the tables a query reads as Kysely compiles its statements: every table node of the
 * query tree, and the tables a raw `sql` fragment names after `from` or `join`. A live query
 * re-runs only when a change touches one of them. Extra names (a CTE, a function) only cost an
 * extra re-run; a test runs every device query and checks these names cover the tables
 * PostgreSQL's own statistics say it scanned.
 */
export class TableReads implements KyselyPlugin {
  readonly tables = new Set<string>()

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    collect(args.node, this.tables)
    return args.node
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result
  }
}

/** A name after `from` or `join` in raw SQL, optionally schema-qualified and quoted. */
const RAW_TABLE = /\b(?:from|join)\s+(?:"?\w+"?\s*\.\s*)?"?([a-z_][a-z0-9_]*)"?/gi

function collect(node: unknown, into: Set<string>): void {
  if (node === null || typeof node !== 'object') return
  if (Array.isArray(node)) {
    for (const item of node) collect(item, into)
    return
  }
  const kind = (node as OperationNode).kind
  if (kind === 'TableNode') {
    const name = (node as { table?: { identifier?: { name?: string } } }).table?.identifier?.name
    if (name) into.add(name)
    return
  }
  if (kind === 'RawNode') {
    for (const fragment of (node as { sqlFragments: readonly string[] }).sqlFragments) {
      for (const match of fragment.matchAll(RAW_TABLE)) into.add(match[1]!.toLowerCase())
    }
  }
  for (const value of Object.values(node)) {
    if (value !== null && typeof value === 'object') collect(value, into)
  }
}
