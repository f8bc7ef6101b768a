import { z } from 'zod'
import type { HouseholdContext } from '../mutator/context.ts'
import type { Operation } from '../mutator/define.ts'

/** Looks an operation up by its registry name; the registry passes itself in, so no cycle forms. */
export type OperationLookup = () => ReadonlyMap<string, Operation>

/** One tool the assistant may use: a registry operation, its JSON Schema and its one line. */
export interface AssistantTool {
  /** The operation's name with `_` for `.` (`budgets_move`), as tool-calling APIs allow. */
  name: string
  operation: string
  description: string
  /** `read` tools answer at once; `write` tools only propose an action a member confirms. */
  kind: 'read' | 'write'
  inputSchema: Record<string, unknown>
}

/**
 * The domains whose operations may be tools: the household's money and its bookkeeping. Anything
 * else is never a tool, so an operation a new domain adds stays out until it is listed here:
 * identity, keys, invitations (an invitation yields a key), household membership and settings,
 * webhooks (their signing secret is a key) and the assistant's own operations.
 */
export const TOOL_DOMAINS: ReadonlySet<string> = new Set([
  'accounts',
  'budgets',
  'catalog',
  'categories',
  'categoryGroups',
  'exchangeRates',
  'flags',
  'forecasts',
  'imports',
  'loans',
  'notifications',
  'payees',
  'recurrences',
  'reports',
  'rules',
  'tags',
  'transactions',
])

const domainOf = (operation: string) => operation.slice(0, operation.indexOf('.'))

const schemaCache = new WeakMap<object, Record<string, unknown>>()

/** The JSON Schema of an operation's arguments, as a caller sends them, from its zod schema. */
export function argsJsonSchema(op: Operation): Record<string, unknown> {
  const cached = schemaCache.get(op.args)
  if (cached) return cached
  let schema: Record<string, unknown>
  try {
    schema = z.toJSONSchema(op.args, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>
    delete schema.$schema
  } catch {
    schema = { type: 'object' }
  }
  if (schema.type !== 'object') schema = { properties: {}, ...schema, type: 'object' }
  schemaCache.set(op.args, schema)
  return schema
}

/** The tool name of an operation name, and back. */
export const toolName = (operation: string) => operation.replace('.', '_')
export const operationOfTool = (tool: string) => tool.replace('_', '.')

/** Whether the member and key behind `ctx` may use the operation as a tool. */
export function mayUseTool(op: Operation, ctx: HouseholdContext): boolean {
  if (op.level !== 'household' || op.audience === 'system' || !TOOL_DOMAINS.has(domainOf(op.name))) {
    return false
  }
  if (op.scope && !ctx.scopes.includes(op.scope)) return false
  return !op.ownerOnly || ctx.role === 'owner'
}

/** Every tool the member may use with this key, by name. */
export function toolsFor(ctx: HouseholdContext, lookup: OperationLookup): AssistantTool[] {
  const out: AssistantTool[] = []
  for (const op of lookup().values()) {
    if (!mayUseTool(op, ctx)) continue
    out.push({
      name: toolName(op.name),
      operation: op.name,
      description: op.description,
      kind: op.kind === 'query' ? 'read' : 'write',
      inputSchema: argsJsonSchema(op),
    })
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}
