import type { z } from 'zod'
import { EngineError, type FieldError } from '../errors.ts'

/** Validates arguments against a zod schema, turning issues into a 400 with field errors. */
export function parseArgs<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw)
  if (parsed.success) return parsed.data
  throw new EngineError(400, 'VALIDATION_FAILED', 'The request has invalid fields.', {
    errors: zodIssuesToFieldErrors(parsed.error.issues),
  })
}

/** Flattens zod issues into `{path, message, code}` entries, with unknown keys named one by one. */
export function zodIssuesToFieldErrors(issues: readonly z.core.$ZodIssue[]): FieldError[] {
  const out: FieldError[] = []
  for (const issue of issues) {
    const base = issue.path.map(String).join('.')
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({ path: base ? `${base}.${key}` : key, message: 'Unknown field.', code: 'unknown_field' })
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
