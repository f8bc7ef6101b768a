import { RE2JS } from 're2js'
import { z } from 'zod'
import { IdArgsSchema, PathIdSchema } from '../catalog/fields.ts'
import { CentsSchema, DateSchema, NameSchema, UlidSchema } from '../shared/schema.ts'

/** Text fields, compared ignoring case as Actual Budget does. */
export const TEXT_FIELDS = ['payee_name', 'imported_payee', 'memo'] as const
/** Fields holding the id of a payee, category or account; null means none. */
export const ID_FIELDS = ['payee_id', 'category_id', 'account_id'] as const
/** Money fields in cents: the signed amount, or only money in (inflow) or out (outflow, as a positive number). */
export const AMOUNT_FIELDS = ['amount', 'inflow', 'outflow'] as const
export const DATE_FIELDS = ['date'] as const

export const RULE_FIELDS = [...TEXT_FIELDS, ...ID_FIELDS, ...AMOUNT_FIELDS, ...DATE_FIELDS] as const
export type RuleField = (typeof RULE_FIELDS)[number]
export type TextField = (typeof TEXT_FIELDS)[number]
export type IdField = (typeof ID_FIELDS)[number]
export type AmountField = (typeof AMOUNT_FIELDS)[number]

export const TEXT_OPS = ['is', 'isNot', 'contains', 'doesNotContain', 'matches', 'oneOf', 'notOneOf'] as const
export const ID_OPS = ['is', 'isNot', 'oneOf', 'notOneOf'] as const
export const AMOUNT_OPS = ['is', 'gt', 'gte', 'lt', 'lte', 'between', 'approx'] as const
export const DATE_OPS = ['is', 'before', 'after', 'onOrBefore', 'onOrAfter', 'approx'] as const

/** The operators each field takes. */
export const OPS_BY_FIELD: Record<RuleField, readonly string[]> = {
  payee_name: TEXT_OPS,
  imported_payee: TEXT_OPS,
  memo: TEXT_OPS,
  payee_id: ID_OPS,
  category_id: ID_OPS,
  account_id: ID_OPS,
  amount: AMOUNT_OPS,
  inflow: AMOUNT_OPS,
  outflow: AMOUNT_OPS,
  date: DATE_OPS,
}

/** Most conditions in one predicate, values in a oneOf list, and characters in a text value. */
export const MAX_CONDITIONS = 50
export const MAX_LIST_VALUES = 100
export const MAX_TEXT_VALUE = 500
/** Most tags or flags one action adds. */
export const MAX_ACTION_LINKS = 20

const TextValue = z.string().max(MAX_TEXT_VALUE, `Must be at most ${MAX_TEXT_VALUE} characters.`)
const NonEmptyText = TextValue.refine((s) => s.length > 0, 'Must not be empty for this operator.')
const TextList = z
  .array(TextValue)
  .min(1, 'Give at least one value.')
  .max(MAX_LIST_VALUES, `Give at most ${MAX_LIST_VALUES} values.`)
const IdList = z
  .array(UlidSchema)
  .min(1, 'Give at least one id.')
  .max(MAX_LIST_VALUES, `Give at most ${MAX_LIST_VALUES} ids.`)
const Between = z.strictObject({ min: CentsSchema, max: CentsSchema })
/** A day, or for `is` a whole month (YYYY-MM) or year (YYYY). */
const DayMonthOrYear = z.union(
  [DateSchema, z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/), z.string().regex(/^\d{4}$/)],
  { error: 'Must be a date as YYYY-MM-DD, a month as YYYY-MM or a year as YYYY.' },
)

/** A regular expression RE2 accepts (linear time, no backreferences or lookaround). */
const Pattern = NonEmptyText.superRefine((pattern, ctx) => {
  const problem = regexProblem(pattern)
  if (problem) ctx.addIssue({ code: 'custom', message: problem })
})

/** Why RE2 refuses a pattern, or null when it compiles. */
export function regexProblem(pattern: string): string | null {
  try {
    RE2JS.compile(pattern)
    return null
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    return `Must be a regular expression RE2 accepts (no backreferences or lookaround): ${reason}`
  }
}

/** The value schema for one field and operator. */
function valueSchema(field: RuleField, op: string): z.ZodType {
  if ((TEXT_FIELDS as readonly string[]).includes(field)) {
    if (op === 'matches') return Pattern
    if (op === 'contains' || op === 'doesNotContain') return NonEmptyText
    if (op === 'oneOf' || op === 'notOneOf') return TextList
    return TextValue.nullable()
  }
  if ((ID_FIELDS as readonly string[]).includes(field)) {
    if (op === 'oneOf' || op === 'notOneOf') return IdList
    return UlidSchema.nullable()
  }
  if ((AMOUNT_FIELDS as readonly string[]).includes(field)) return op === 'between' ? Between : CentsSchema
  return op === 'is' ? DayMonthOrYear : DateSchema
}

const RawConditionSchema = z.strictObject({
  field: z.enum(RULE_FIELDS, { error: `Must be one of: ${RULE_FIELDS.join(', ')}.` }),
  op: z.string().max(40),
  value: z.unknown(),
})

/**
 * One test on a transaction: `{field, op, value}`. The operator must be one the field takes and
 * the value must suit both (a 400 names `op` or `value` otherwise); the value comes back parsed.
 */
export const ConditionSchema = RawConditionSchema.transform((c, ctx) => {
  const ops = OPS_BY_FIELD[c.field]
  if (!ops.includes(c.op)) {
    ctx.addIssue({
      code: 'custom',
      path: ['op'],
      message: `Field ${c.field} takes these operators: ${ops.join(', ')}.`,
    })
    return z.NEVER
  }
  if (c.value === undefined) {
    ctx.addIssue({ code: 'custom', path: ['value'], message: 'Required.' })
    return z.NEVER
  }
  const parsed = valueSchema(c.field, c.op).safeParse(c.value)
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      ctx.addIssue({ ...issue, path: ['value', ...issue.path] } as z.core.$ZodRawIssue)
    return z.NEVER
  }
  return { field: c.field, op: c.op, value: parsed.data } as Condition
})

/** A parsed condition; `value` is typed by its field and operator. */
export type Condition =
  | { field: TextField; op: 'is' | 'isNot'; value: string | null }
  | { field: TextField; op: 'contains' | 'doesNotContain' | 'matches'; value: string }
  | { field: TextField; op: 'oneOf' | 'notOneOf'; value: string[] }
  | { field: IdField; op: 'is' | 'isNot'; value: string | null }
  | { field: IdField; op: 'oneOf' | 'notOneOf'; value: string[] }
  | { field: AmountField; op: 'is' | 'gt' | 'gte' | 'lt' | 'lte' | 'approx'; value: number }
  | { field: AmountField; op: 'between'; value: { min: number; max: number } }
  | { field: 'date'; op: (typeof DATE_OPS)[number]; value: string }

export type TextCondition = Extract<Condition, { field: TextField }>
export type IdCondition = Extract<Condition, { field: IdField }>
export type AmountCondition = Extract<Condition, { field: AmountField }>
export type DateCondition = Extract<Condition, { field: 'date' }>

/** When a rule matches: all conditions (`all`) or at least one (`any`). */
export const PredicateSchema = z.strictObject({
  combinator: z.enum(['all', 'any'], { error: 'Must be all or any.' }),
  conditions: z
    .array(ConditionSchema)
    .min(1, 'Give at least one condition.')
    .max(MAX_CONDITIONS, `Give at most ${MAX_CONDITIONS} conditions.`),
})
export type Predicate = z.output<typeof PredicateSchema>

const MemoPiece = z
  .string()
  .min(1, 'Must not be empty.')
  .max(MAX_TEXT_VALUE, `Must be at most ${MAX_TEXT_VALUE} characters.`)
const LinkIds = z
  .array(UlidSchema)
  .min(1, 'Give at least one id.')
  .max(MAX_ACTION_LINKS, `Give at most ${MAX_ACTION_LINKS} ids.`)
  .transform((ids) => [...new Set(ids)])

/** What a matching rule does to a row; `stopProcessing` keeps later rules off that row. */
export const ActionSchema = z
  .strictObject({
    setCategoryId: UlidSchema.optional(),
    setPayeeId: UlidSchema.optional(),
    appendMemo: MemoPiece.optional(),
    prependMemo: MemoPiece.optional(),
    addTagIds: LinkIds.optional(),
    addFlagIds: LinkIds.optional(),
    stopProcessing: z.boolean().optional(),
  })
  .refine((a) => Object.values(a).some((v) => v !== undefined && v !== false), {
    message:
      'Give at least one action: setCategoryId, setPayeeId, appendMemo, prependMemo, addTagIds, addFlagIds or stopProcessing.',
  })
export type Action = z.output<typeof ActionSchema>

/** The largest priority; rules run from the lowest priority up. */
export const MAX_PRIORITY = 2_147_483_647
const PrioritySchema = z
  .number()
  .int('Must be a whole number.')
  .min(0, 'Must be 0 or more.')
  .max(MAX_PRIORITY, `Must be at most ${MAX_PRIORITY}.`)

export const CreateRuleArgsSchema = z.strictObject({
  id: UlidSchema,
  name: NameSchema,
  predicate: PredicateSchema,
  action: ActionSchema,
  /** Default true. */
  enabled: z.boolean().optional(),
  /** Default 0; lower runs first, ties by creation. */
  priority: PrioritySchema.optional(),
})
export type CreateRuleArgs = z.output<typeof CreateRuleArgsSchema>

export const UpdateRuleArgsSchema = z.strictObject({
  id: PathIdSchema,
  name: NameSchema.optional(),
  predicate: PredicateSchema.optional(),
  action: ActionSchema.optional(),
  enabled: z.boolean().optional(),
  priority: PrioritySchema.optional(),
})
export type UpdateRuleArgs = z.output<typeof UpdateRuleArgsSchema>

export { IdArgsSchema as RuleIdArgsSchema }

/** Which applications to list: of one rule, of one transaction, or both. */
export const ListRuleApplicationsArgsSchema = z.strictObject({
  ruleId: PathIdSchema.optional(),
  transactionId: PathIdSchema.optional(),
})
export type ListRuleApplicationsArgs = z.output<typeof ListRuleApplicationsArgsSchema>
