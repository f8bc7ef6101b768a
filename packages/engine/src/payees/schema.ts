import { z } from 'zod'
import { PathIdSchema } from '../catalog/fields.ts'
import { RefIdSchema } from '../ledger/schema.ts'
import { regexProblem } from '../rules/schema.ts'
import { NameSchema, UlidSchema } from '../shared/schema.ts'

/** How an alias may match a payee name. */
export const ALIAS_MATCHES = ['exact', 'startsWith', 'contains', 'regex'] as const

/** The page sizes `payees.page` offers; anything else is refused. */
export const PAYEE_PAGE_SIZES = [10, 25, 50, 100] as const
export const PAYEE_PAGE_DEFAULT_SIZE = 25
/** The last page a caller may ask for: far beyond any household, and an offset SQL takes. */
export const PAYEE_PAGE_MAX = 1_000_000

const PageSizeSchema = z
  .union([z.number(), z.string().regex(/^\d{1,4}$/, 'Must be 10, 25, 50 or 100.')], {
    error: 'Must be 10, 25, 50 or 100.',
  })
  .transform((v) => Number(v))
  .pipe(
    z.union(
      PAYEE_PAGE_SIZES.map((n) => z.literal(n)),
      { error: 'Must be 10, 25, 50 or 100.' },
    ),
  )

const PageNumberSchema = z
  .union([z.number().int(), z.string().regex(/^\d{1,7}$/)], {
    error: `Must be a whole number from 1 to ${PAYEE_PAGE_MAX}.`,
  })
  .transform((v) => Number(v))
  .pipe(
    z
      .number()
      .int()
      .min(1, `Must be a whole number from 1 to ${PAYEE_PAGE_MAX}.`)
      .max(PAYEE_PAGE_MAX, `Must be a whole number from 1 to ${PAYEE_PAGE_MAX}.`),
  )

/** GET H/payees/page: every parameter optional. */
export const PayeePageArgsSchema = z
  .strictObject({
    sort: z.enum(['nameAsc', 'nameDesc'], { error: 'Must be nameAsc or nameDesc.' }).default('nameAsc'),
    /** Only payees whose default category is this one. */
    categoryId: RefIdSchema.optional(),
    segment: z.enum(['all', 'noCategory'], { error: 'Must be all or noCategory.' }).default('all'),
    /** Folded like names; matches anywhere in a payee's name or one of its aliases. */
    q: z.string().max(200, 'Must be at most 200 characters.').optional(),
    pageSize: PageSizeSchema.default(PAYEE_PAGE_DEFAULT_SIZE),
    page: PageNumberSchema.default(1),
  })
  .refine((a) => !(a.categoryId !== undefined && a.segment === 'noCategory'), {
    message: 'segment=noCategory lists payees without a category; it cannot be combined with categoryId.',
    path: ['segment'],
  })
export type PayeePageArgs = z.output<typeof PayeePageArgsSchema>

/** A payee named by the path. */
export const PayeeIdArgsSchema = z.strictObject({ id: PathIdSchema })

/** POST H/payees/{payeeId}/aliases. */
export const CreatePayeeAliasArgsSchema = z
  .strictObject({
    payeeId: PathIdSchema,
    id: UlidSchema,
    /** The spelling, or the pattern when `match` is not `exact`. */
    name: NameSchema,
    /** Default `exact`: names that are this spelling; else names starting with it, containing it, or matching it as an RE2 regex. */
    match: z.enum(ALIAS_MATCHES, { error: `Must be one of: ${ALIAS_MATCHES.join(', ')}.` }).default('exact'),
  })
  .superRefine((a, ctx) => {
    if (a.match !== 'regex') return
    const problem = regexProblem(a.name)
    if (problem) ctx.addIssue({ code: 'custom', path: ['name'], message: problem })
  })
export type CreatePayeeAliasArgs = z.output<typeof CreatePayeeAliasArgsSchema>

/** DELETE H/payees/{payeeId}/aliases/{aliasId}. */
export const DeletePayeeAliasArgsSchema = z.strictObject({ payeeId: PathIdSchema, id: PathIdSchema })

/** POST H/payees/{payeeId}/merge. */
export const MergePayeeArgsSchema = z.strictObject({
  id: PathIdSchema,
  targetPayeeId: RefIdSchema,
  /** The merge record's id; the route fills it when left out. */
  mergeId: UlidSchema,
})
export type MergePayeeArgs = z.output<typeof MergePayeeArgsSchema>
