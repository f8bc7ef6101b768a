import type { z } from 'zod'
import { EngineError, type FieldError } from '../errors.ts'

/**
 * Validates arguments against a zod schema, turning issues into a 400 with field errors. Text
 * that PostgreSQL cannot store (see `unstorableText`) is refused here too, by field, rather than
 * failing later in SQL.
 */
export function parseArgs<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw)
  const errors = parsed.success ? unstorableText(parsed.data) : zodIssuesToFieldErrors(parsed.error.issues)
  if (parsed.success && errors.length === 0) return parsed.data
  throw new EngineError(400, 'VALIDATION_FAILED', 'The request has invalid fields.', { errors })
}

/** At most this many text errors are named; one is enough to fix the input. */
const MAX_TEXT_ERRORS = 10

/**
 * Strings (values and keys, at any depth) that PostgreSQL cannot hold: the NUL character, which
 * text and jsonb refuse, and unpaired UTF-16 surrogates, which jsonb refuses and text would
 * silently replace. Walks without recursion, so no input nests deep enough to overflow the stack.
 */
export function unstorableText(value: unknown): FieldError[] {
  const out: FieldError[] = []
  const stack: [unknown, string][] = [[value, '']]
  while (stack.length > 0 && out.length < MAX_TEXT_ERRORS) {
    const [v, path] = stack.pop()!
    if (typeof v === 'string') {
      const problem = textProblem(v)
      if (problem) out.push({ path, message: problem, code: 'invalid_text' })
    } else if (v !== null && typeof v === 'object' && (Array.isArray(v) || isPlainObject(v))) {
      for (const [key, item] of Object.entries(v)) {
        const at = path ? `${path}.${key}` : key
        const problem = textProblem(key)
        if (problem) out.push({ path: at, message: `Key: ${problem}`, code: 'invalid_text' })
        stack.push([item, at])
      }
    }
  }
  return out
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** Whether PostgreSQL can store `s` as text: no NUL character, no unpaired surrogate. */
export function isStorableText(s: string): boolean {
  return textProblem(s) === null
}

function textProblem(s: string): string | null {
  if (s.includes('\u0000')) return 'Must not contain the NUL character (U+0000).'
  if (LONE_SURROGATE.test(s)) return 'Must be valid Unicode: it has an unpaired surrogate.'
  return null
}

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}

/** Flattens zod issues into `{path, message, code}` entries, with unknown keys named one by one. */
export function zodIssuesToFieldErrors(issues: readonly z.core.$ZodIssue[]): FieldError[] {
  const out: FieldError[] = []
  for (const issue of issues) {
    const base = issue.path.map(String).join('.')
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({
          path: base ? `${base}.${key}` : key,
          message: `Unknown field "${key}".`,
          code: 'unknown_field',
        })
      }
      continue
    }
    out.push({ path: base, message: messageOf(issue), code: issue.code })
  }
  return out
}

/**
 * A union's bare "Invalid input" says nothing of what would do, so it names what each branch
 * accepts instead: "Expected boolean, received string; or expected one of "true"|"false"".
 */
function messageOf(issue: z.core.$ZodIssue): string {
  if (issue.code !== 'invalid_union' || issue.message !== 'Invalid input' || issue.errors.length === 0) {
    return issue.message
  }
  const branches = [...new Set(issue.errors.map((branch) => branch[0]?.message).filter(Boolean))]
  const said = branches.map((m, i) => (i === 0 ? m! : m!.charAt(0).toLowerCase() + m!.slice(1)))
  return `Accepted: ${said.join('; or ')}`
}
