import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely'

/** What one kind of statement cost: how many ran and the time from sending each to its answer. */
interface Tally {
  count: number
  ms: number
  rows: number
}

/**
 * A Kysely plugin that counts the statements a piece of work runs and the time each took from
 * being sent to its answer, keyed by the statement's kind and table (or a raw statement's first
 * words). On a pipelining store a deferred statement's time includes the wait for those sent
 * after it, so the figures say where the time goes, not to the millisecond.
 */
export class StatementProfile implements KyselyPlugin {
  private readonly started = new Map<unknown, { key: string; at: number }>()
  private tallies = new Map<string, Tally>()

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.started.set(args.queryId, { key: keyOf(args.node), at: performance.now() })
    return args.node
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const start = this.started.get(args.queryId)
    if (start) {
      this.started.delete(args.queryId)
      const t = this.tallies.get(start.key) ?? { count: 0, ms: 0, rows: 0 }
      t.count++
      t.ms += performance.now() - start.at
      t.rows += args.result.rows.length
      this.tallies.set(start.key, t)
    }
    return args.result
  }

  /** The tallies since the last call, most costly first, and starts afresh. */
  take(): { key: string; count: number; ms: number; rows: number }[] {
    const out = [...this.tallies].map(([key, t]) => ({ key, ...t })).sort((a, b) => b.ms - a.ms)
    this.tallies = new Map()
    return out
  }

  /** Prints the tallies since the last call under a heading. */
  print(heading: string): void {
    const rows = this.take()
    const total = rows.reduce((s, r) => s + r.count, 0)
    console.log(`  ${heading}: ${total} statements`)
    for (const r of rows.slice(0, 25))
      console.log(
        `    ${String(r.count).padStart(6)} × ${r.ms.toFixed(0).padStart(7)} ms ${String(r.rows).padStart(7)} rows  ${r.key}`,
      )
  }
}

function keyOf(node: RootOperationNode): string {
  const n = node as any
  switch (node.kind) {
    case 'SelectQueryNode':
      return `select from ${tables(n.from?.froms)}`
    case 'InsertQueryNode':
      return `insert into ${tableName(n.into)}`
    case 'UpdateQueryNode':
      return `update ${tableName(n.table)}`
    case 'DeleteQueryNode':
      return `delete from ${tables(n.from?.froms)}`
    case 'RawNode':
      return (n.sqlFragments as string[]).join('$').replace(/\s+/g, ' ').trim().slice(0, 90)
    default:
      return node.kind
  }
}

function tables(froms: any[] | undefined): string {
  return (froms ?? []).map(tableName).join(', ')
}

function tableName(node: any): string {
  if (!node) return '?'
  if (node.kind === 'TableNode') return node.table.identifier.name
  if (node.kind === 'AliasNode') return tableName(node.node)
  return node.kind
}
