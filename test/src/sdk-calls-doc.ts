import { deviceMutators, deviceQueries } from '@hearth/engine/sync'
import { z } from 'zod'

type JsonSchema = {
  type?: string | string[]
  properties?: Record<string, JsonSchema>
  required?: string[]
  enum?: unknown[]
  items?: JsonSchema
  anyOf?: JsonSchema[]
  format?: string
  pattern?: string
}

/** A schema as a short type a reader recognises: `string`, `'a' | 'b'`, `string[]`, `object`. */
function typeOf(schema: JsonSchema): string {
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' \\| ')
  if (schema.anyOf) return [...new Set(schema.anyOf.map(typeOf))].join(' \\| ')
  if (schema.type === 'array') return `${schema.items ? typeOf(schema.items) : 'unknown'}[]`
  if (Array.isArray(schema.type)) return schema.type.join(' \\| ')
  if (schema.pattern === '^[0-9A-HJKMNP-TV-Z]{26}$') return 'ULID'
  return schema.format ? `${schema.type ?? 'string'} (${schema.format})` : (schema.type ?? 'any')
}

function section(title: string, call: string, tree: object): string[] {
  const lines = [`## ${title}`, '', '| Call | Scope | Arguments (`?` optional) |', '|---|---|---|']
  for (const [noun, verbs] of Object.entries(tree as Record<string, Record<string, any>>).sort()) {
    for (const [verb, op] of Object.entries(verbs).sort()) {
      const schema = z.toJSONSchema(op.args, { io: 'input', unrepresentable: 'any' }) as JsonSchema
      const required = new Set(schema.required ?? [])
      const args = Object.entries(schema.properties ?? {})
        .map(([name, s]) => `\`${name}${required.has(name) ? '' : '?'}\`: ${typeOf(s)}`)
        .join(', ')
      lines.push(
        `| \`${call}.${noun}.${verb}\` | ${op.scope ? `\`${op.scope}\`` : '—'} | ${args || 'none'} |`,
      )
    }
  }
  return [...lines, '']
}

/** docs/sdk-calls.md: every SDK call with its scope and arguments, made from the registry. */
export function sdkCallsDoc(): string {
  return [
    '# SDK calls',
    '',
    'Generated from the engine registry by `test/src/sdk-calls-doc.ts`; `test/sdk-calls.test.ts` fails',
    'when it drifts (regenerate: `npx tsx test/src/sdk-calls-doc.ts > docs/sdk-calls.md`). Each call is the',
    "registry operation of the same name, so its REST route's body and query take the same fields. A",
    "path parameter named otherwise than its argument may be given by either name: REST's `{yearMonth}`",
    "is the argument `month` and `{ruleId}` is `id`, so `query.budgets.get({yearMonth: '2024-05'})` and",
    "`query.budgets.get({month: '2024-05'})` are the same call (both with different values: 400",
    '`VALIDATION_FAILED`). The names are in `client-sdk/src/rest-names.ts`, generated from the OpenAPI',
    "document (`/openapi.json`, each path parameter's `x-hearth-argument`), which also maps each path to",
    'its operationId. Ids of new rows are filled in when left out. Refusals are `HearthError`s',
    '(docs/client.md).',
    '',
    ...section('Mutations (`hearth.mutate`)', 'mutate', deviceMutators),
    ...section('Queries (`hearth.query`, and `hearth.watch` by name)', 'query', deviceQueries),
  ].join('\n')
}

if (process.argv[1]?.endsWith('sdk-calls-doc.ts')) process.stdout.write(sdkCallsDoc())
