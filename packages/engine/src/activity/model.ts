/**
 * How an activity entry reads: the rows it changed as resources with their changed fields, a
 * one-line summary with amounts in the household's currency, and its actor's label. Pure: the
 * query hands it the stored images and names.
 */

/** Columns never shown: bookkeeping every row has, and anything that could hold a secret. */
const HIDDEN = /^(household_id|created_at|updated_at)$|secret|hash|token|password/

/** Resource names for tables whose singular is not the table name less its `s`. */
const RESOURCE_NAMES: Record<string, string> = {
  categories: 'category',
  category_groups: 'category group',
  budget_cells: 'budget cell',
  budget_history: 'budget history line',
  transaction_splits: 'split',
  transaction_tags: 'transaction tag',
  transaction_flags: 'transaction flag',
  payee_aliases: 'payee alias',
  payee_category_rejections: 'rejected payee category',
  recurrence_dismissals: 'dismissed recurrence',
  loan_terms: 'loan terms',
  exchange_rates: 'exchange rate',
  households: 'household',
  memberships: 'membership',
}

/** A row as a reader calls it: `transactions` → `transaction`. */
export function resourceName(table: string): string {
  return RESOURCE_NAMES[table] ?? table.replace(/s$/, '').replace(/_/g, ' ')
}

/** A column as the API calls it: `amount_cents` → `amountCents`. */
export function fieldName(column: string): string {
  return column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())
}

/** Cents in a currency, exactly, with no floating point: `-125000`, `USD` → `-$1,250.00`. */
export function formatMoney(cents: string, currency: string): string {
  const negative = cents.startsWith('-')
  const digits = (negative ? cents.slice(1) : cents).padStart(3, '0')
  const whole = digits.slice(0, -2).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  return `${negative ? '-' : ''}${currencySymbol(currency)}${whole}.${digits.slice(-2)}`
}

/**
 * Each currency's symbol, found once: an `Intl.NumberFormat` costs about 0.1 ms to make, and an
 * entry's every amount asked for one (half of a transaction history's read in the bench's profile).
 */
const SYMBOLS = new Map<string, string>()

function currencySymbol(currency: string): string {
  let symbol = SYMBOLS.get(currency)
  if (symbol === undefined) {
    symbol = findSymbol(currency)
    if (SYMBOLS.size < 1000) SYMBOLS.set(currency, symbol)
  }
  return symbol
}

function findSymbol(currency: string): string {
  try {
    const part = new Intl.NumberFormat('en-US', { style: 'currency', currency })
      .formatToParts(0)
      .find((p) => p.type === 'currency')?.value
    if (part) return part.length === 1 ? part : `${part} `
  } catch {}
  return `${currency} `
}

/** One changed field: its values as the API gives them (cents as strings), and as text. */
export interface FieldChange {
  field: string
  before: unknown
  after: unknown
  text: string
}

/** What happened to one row: created, updated, deleted (soft or for good) or restored. */
export type ChangeAction = 'created' | 'updated' | 'deleted' | 'restored'

/** One row an entry changed, as a reader sees it. */
export interface ResourceChange {
  resource: string
  table: string
  id: string
  action: ChangeAction
  fields: FieldChange[]
}

/** A stored row change: its table, key, and images (null before: inserted; null after: deleted). */
export interface StoredChange {
  table: string
  rowId: string
  before: Record<string, unknown> | null
  after: Record<string, unknown> | null
}

/**
 * The columns that point at a named row, and its table: a change reads `payee "Bakery"` rather
 * than `payeeId "01J…"`. The activity query looks the names up (`presentEntries`).
 */
export const NAMED_REFERENCES = {
  account_id: 'accounts',
  payment_account_id: 'accounts',
  category_id: 'categories',
  suggested_category_id: 'categories',
  counterpart_category_id: 'categories',
  group_id: 'category_groups',
  payee_id: 'payees',
  source_payee_id: 'payees',
  target_payee_id: 'payees',
  merged_into_id: 'payees',
  tag_id: 'tags',
} as const satisfies Record<string, string>

/** A table whose rows `NAMED_REFERENCES` names. */
export type NamedTable = (typeof NAMED_REFERENCES)[keyof typeof NAMED_REFERENCES]

/** The names of referenced rows an entry's reader may read, by id. */
export type RowNames = ReadonlyMap<string, string>

function isReference(column: string): column is keyof typeof NAMED_REFERENCES {
  return Object.hasOwn(NAMED_REFERENCES, column)
}

/** A column as a change's text calls it: `payee_id` → `payee`, `amount_cents` → `amountCents`. */
function labelOf(column: string): string {
  return isReference(column) ? fieldName(column.slice(0, -3)) : fieldName(column)
}

function valueText(column: string, value: unknown, currency: string, names: RowNames): string {
  if (value === null || value === undefined) return 'none'
  // A row the reader may not read, or gone for good, keeps its id.
  if (isReference(column) && typeof value === 'string') return `"${names.get(value) ?? value}"`
  if (column.endsWith('_cents') && /^-?\d+$/.test(String(value))) return formatMoney(String(value), currency)
  if (typeof value === 'string') return `"${value}"`
  return JSON.stringify(value)
}

function apiValue(column: string, value: unknown): unknown {
  if (value === undefined) return null
  return column.endsWith('_cents') && typeof value === 'number' ? String(value) : value
}

/**
 * The fields one stored change touched, with before and after, hidden columns left out; a
 * reference to a named row reads as its name in `names`, its `before` and `after` stay the id.
 */
export function describeChange(
  change: StoredChange,
  currency: string,
  names: RowNames = new Map(),
): ResourceChange {
  const before = change.before ?? {}
  const after = change.after ?? {}
  const columns = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((c) => !HIDDEN.test(c))
  const fields: FieldChange[] = []
  for (const column of columns) {
    const b = change.before ? before[column] : undefined
    const a = change.after ? after[column] : undefined
    if (JSON.stringify(b ?? null) === JSON.stringify(a ?? null)) continue
    const field = fieldName(column)
    const label = labelOf(column)
    const text = !change.before
      ? `${label} ${valueText(column, a, currency, names)}`
      : !change.after
        ? `${label} was ${valueText(column, b, currency, names)}`
        : `${label} ${valueText(column, b, currency, names)} → ${valueText(column, a, currency, names)}`
    fields.push({ field, before: apiValue(column, b), after: apiValue(column, a), text })
  }
  return {
    resource: resourceName(change.table),
    table: change.table,
    id: change.rowId,
    action: actionOf(change),
    fields,
  }
}

function actionOf({ before, after }: StoredChange): ChangeAction {
  if (!before) return 'created'
  if (!after) return 'deleted'
  if (before.deleted_at == null && after.deleted_at != null) return 'deleted'
  if (before.deleted_at != null && after.deleted_at == null) return 'restored'
  return 'updated'
}

/**
 * One line saying what an entry did, each row as `<action> <resource>: <fields>`, rows joined
 * with `; ` (`updated transaction: amountCents -$12.00 → -$15.00, memo "x" → "y"`).
 */
export function summarize(operation: string, changes: readonly ResourceChange[]): string {
  if (changes.length === 0) return `${operation} (no household rows changed)`
  const lines = changes.map((c) => {
    const fields = c.action === 'deleted' ? [] : c.fields.map((f) => f.text)
    return `${c.action} ${c.resource}${fields.length ? `: ${fields.join(', ')}` : ''}`
  })
  return lines.join('; ')
}

/** What an actor label is made from: the stored kind and reference, and the names they point at. */
export interface ActorNames {
  kind: string
  ref: string | null
  member: string
  /** The key's name, the device's name, or the job's, when known. */
  name: string | null
}

/**
 * A readable actor: "Ana with the key "Budget script"", "Ana's phone", "the job
 * recurrences.materialize", "the assistant, confirmed by Ana". A kind added to `ActorVia`
 * adds its line here.
 */
export function actorLabel({ kind, ref, member, name }: ActorNames): string {
  switch (kind) {
    case 'key':
      return name ? `${member} with the key "${name}"` : `${member} with a key`
    case 'session':
      return `${member}, signed in`
    case 'device':
      return name ? `${member}'s ${name}` : `${member}'s device`
    case 'job':
      return `the job ${ref ?? ''}`.trim()
    case 'assistant':
      return `the assistant, confirmed by ${member}`
    case 'cli':
      return `${member} at the command line`
    default:
      return member
  }
}
