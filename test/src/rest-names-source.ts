import { deviceMutators, deviceQueries } from '@hearth/engine/sync'

/** The parts of an OpenAPI document the generator reads. */
interface OpenApiDoc {
  paths: Record<
    string,
    Record<string, { operationId?: string; parameters?: { in: string; name: string; schema?: object }[] }>
  >
}

/** Every device operation's name (`budgets.get`) and its argument names. */
function deviceOperations(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>()
  for (const tree of [deviceMutators, deviceQueries] as unknown as Record<string, Record<string, any>>[]) {
    for (const verbs of Object.values(tree)) {
      for (const op of Object.values(verbs)) out.set(op.name, new Set(Object.keys(op.args.shape ?? {})))
    }
  }
  return out
}

/**
 * For each SDK call whose REST path names a parameter otherwise than the call's argument, the
 * REST name and the argument (`budgets.get`: `yearMonth` is `month`), read from the OpenAPI
 * document's `x-hearth-argument`. A REST name that is itself another argument of the call is left
 * out (it could not be told apart), and two routes of one operation that disagree are an error.
 */
export function restParameterNames(doc: OpenApiDoc): Record<string, Record<string, string>> {
  const device = deviceOperations()
  const out: Record<string, Record<string, string>> = {}
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const entry of Object.values(methods)) {
      const args = entry.operationId ? device.get(entry.operationId) : undefined
      if (!args) continue
      for (const p of entry.parameters ?? []) {
        const arg = (p.schema as { 'x-hearth-argument'?: string } | undefined)?.['x-hearth-argument']
        if (p.in !== 'path' || !arg || arg === p.name || args.has(p.name)) continue
        out[entry.operationId!] ??= {}
        const names = out[entry.operationId!]!
        if (names[p.name] !== undefined && names[p.name] !== arg) {
          throw new Error(`${entry.operationId}: {${p.name}} fills ${names[p.name]} and ${arg} (${path})`)
        }
        names[p.name] = arg
      }
    }
  }
  return Object.fromEntries(
    Object.entries(out)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([op, names]) => [op, Object.fromEntries(Object.entries(names).sort())]),
  )
}

/** client-sdk/src/rest-names.ts, as biome formats it. */
export function restNamesSource(doc: OpenApiDoc): string {
  const entries = Object.entries(restParameterNames(doc)).map(
    ([op, names]) =>
      `  '${op}': { ${Object.entries(names)
        .map(([rest, arg]) => `${rest}: '${arg}'`)
        .join(', ')} },`,
  )
  return [
    "// Generated from the server's OpenAPI document by test/src/rest-names-source.ts; do not edit.",
    '// test/sdk-rest-names.test.ts fails when it drifts (regenerate: npx tsx test/src/rest-names-source.ts).',
    '',
    '/**',
    " * For each SDK call whose REST path names a parameter otherwise than the call's argument: the",
    " * REST name and the argument it fills. A call takes either name (`{yearMonth: '2024-05'}` or",
    " * `{month: '2024-05'}`).",
    ' */',
    'export const REST_PARAMETER_NAMES = {',
    ...entries,
    '} as const',
    '',
  ].join('\n')
}

if (process.argv[1]?.endsWith('rest-names-source.ts')) {
  const { writeFileSync } = await import('node:fs')
  const { join } = await import('node:path')
  const { createApp } = await import('@hearth/server')
  const { default: pino } = await import('pino')
  // The document needs no store: it is built from the route table alone.
  const app = createApp({ store: null as never, logger: pino({ level: 'silent' }) })
  const doc = app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'Hearth API', version: '0' } })
  const target = join(import.meta.dirname, '..', '..', 'client-sdk', 'src', 'rest-names.ts')
  writeFileSync(target, restNamesSource(doc as unknown as OpenApiDoc))
}
