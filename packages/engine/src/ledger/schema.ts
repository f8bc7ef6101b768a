import { z } from 'zod'

/**
 * An id naming an existing row (from a path or a body reference): any short string, so a
 * malformed id answers 404 like an unknown one instead of 400.
 */
export const RefIdSchema = z.string().min(1).max(64)

/** A boolean that also arrives as the query-string text "true" or "false". */
export const QueryBooleanSchema = z
  .union([z.boolean(), z.enum(['true', 'false'])], { error: 'Must be true or false.' })
  .transform((v) => v === true || v === 'true')

/** A whole number that also arrives as query-string digits, bounded to [min, max]. */
export function queryIntSchema(min: number, max: number) {
  return z
    .union([z.number().int(), z.string().regex(/^-?\d{1,9}$/, 'Must be a whole number.')])
    .transform((v) => Number(v))
    .pipe(z.number().int().min(min).max(max))
}

/**
 * A cursor list's page size: a whole number from 1, where a larger one than `max` is read as
 * `max` (the contract caps it rather than refusing it), however many digits it has.
 */
export function queryLimitSchema(max: number) {
  return z
    .union([z.number().min(1), z.string().regex(/^-?\d+$/, 'Must be a whole number.')])
    .transform((v) => Math.min(Number(v), max))
    .pipe(z.number().int().min(1))
}

/** A list that arrives as a JSON array or as comma-separated query text; empty entries are dropped. */
export function commaListSchema<T extends z.ZodType<string, string>>(item: T, max: number) {
  return z
    .union([z.array(z.string()), z.string()])
    .transform((v) =>
      (typeof v === 'string' ? v.split(',') : v).map((s) => s.trim()).filter((s) => s.length > 0),
    )
    .pipe(z.array(item).max(max, `At most ${max} entries.`))
}

/** A list of distinct ids, for replacing a row's tags or flags. */
export function idSetSchema(max: number) {
  return z
    .array(RefIdSchema)
    .max(max, `At most ${max} entries.`)
    .refine((ids) => new Set(ids).size === ids.length, 'Ids must not repeat.')
}
