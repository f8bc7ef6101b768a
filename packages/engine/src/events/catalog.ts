import { z } from 'zod'
import type { BankConnection } from '../banks/model.ts'
import type { Category, CategoryGroup, Flag, Payee, Tag } from '../catalog/model.ts'
import type { Account } from '../ledger/accounts/model.ts'
import type { ExchangeRate } from '../ledger/exchange-rates/model.ts'
import type { AccountType } from '../ledger/tables.ts'
import type { Transaction } from '../ledger/transactions/model.ts'
import type { Rule } from '../rules/model.ts'
import type { WebhookSubscription } from '../webhooks/model.ts'

/**
 * A resource carried whole in an event, exactly as the REST API returns it. Its full schema is
 * the API's (the OpenAPI component named `name`); here it is checked only for its key field, and
 * typed at compile time by the engine's model.
 */
function resource<T>(name: string, key: keyof T & string) {
  return z
    .custom<T>(
      (value) =>
        typeof value === 'object' &&
        value !== null &&
        typeof (value as Record<string, unknown>)[key] === 'string',
      { message: `Must be a ${name} object.` },
    )
    .describe(name)
}

const Id = z.string()
/** The names of the fields the request set; a field it left out is not listed. */
const Changes = z.array(z.string())
/** Money as a decimal integer string of cents, as in every response body. */
const Cents = z.string().regex(/^-?\d+$/)

const AccountResource = resource<Account>('Account', 'id')
const TransactionResource = resource<Transaction>('Transaction', 'id')
const CategoryResource = resource<Category>('Category', 'id')
const CategoryGroupResource = resource<CategoryGroup>('CategoryGroup', 'id')
const PayeeResource = resource<Payee>('Payee', 'id')
const TagResource = resource<Tag>('Tag', 'id')
const FlagResource = resource<Flag>('Flag', 'id')
const ExchangeRateResource = resource<ExchangeRate>('ExchangeRate', 'fromCurrency')
const RuleResource = resource<Rule>('Rule', 'id')
const WebhookSubscriptionResource = resource<WebhookSubscription>('WebhookSubscription', 'id')
const BankConnectionResource = resource<BankConnection>('BankConnection', 'id')

/**
 * Every event the engine emits, by type, with the schema of its `data`. Types are `noun.verb`,
 * the noun in camelCase as in the registry (`categoryGroup.created` for `categoryGroups.create`).
 * `ctx.emit` accepts only these types with their payloads, webhook subscriptions validate their
 * `eventTypes` against `EVENT_TYPES`, and docs/events.md documents each one (a test keeps them
 * in step). Adding a field is compatible; renaming or removing one is a new type.
 */
export const EVENT_SCHEMAS = {
  'household.created': z.object({ householdId: Id }),
  'household.updated': z.object({ householdId: Id, changes: Changes }),

  'account.created': z.object({ account: AccountResource }),
  'account.updated': z.object({
    account: AccountResource,
    convertedFrom: z.custom<AccountType>((v) => typeof v === 'string').optional(),
  }),
  'account.reordered': z.object({ accountIds: z.array(Id) }),
  'account.reconciled': z.object({
    account: AccountResource,
    statementDate: z.string(),
    statementBalanceCents: Cents,
    adjustment: TransactionResource.nullable(),
    reconciledCount: z.number().int(),
  }),
  'account.closed': z.object({ account: AccountResource, adjustment: TransactionResource.nullable() }),
  'account.reopened': z.object({ account: AccountResource }),
  'account.deleted': z.object({ account: AccountResource, deletedTransactionCount: z.number().int() }),
  'account.lowBalanceAhead': z.object({
    accountId: Id,
    name: z.string(),
    currency: z.string(),
    date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    projectedBalanceCents: Cents,
  }),

  'transaction.created': z.object({ transaction: TransactionResource }),
  'transaction.updated': z.object({
    transaction: TransactionResource,
    matchedTransactionId: Id.nullable().optional(),
    acceptedSuggestion: z.literal(true).optional(),
    rejectedSuggestion: z.literal(true).optional(),
  }),
  'transaction.deleted': z.object({ transaction: TransactionResource }),

  'exchangeRate.updated': z.object({ exchangeRate: ExchangeRateResource }),
  'exchangeRate.deleted': z.object({ fromCurrency: z.string(), toCurrency: z.string() }),

  'categoryGroup.created': z.object({ categoryGroup: CategoryGroupResource }),
  'categoryGroup.updated': z.object({ categoryGroup: CategoryGroupResource, changes: Changes }),
  'categoryGroup.deleted': z.object({ id: Id, categoryIds: z.array(Id) }),

  'category.created': z.object({ category: CategoryResource }),
  'category.updated': z.object({ category: CategoryResource, changes: Changes }),
  'category.deleted': z.object({ id: Id }),
  'category.reordered': z.object({
    items: z.array(z.object({ id: Id, groupId: Id, position: z.number().int() })),
  }),

  'payee.created': z.object({ payee: PayeeResource }),
  'payee.updated': z.object({ payee: PayeeResource, changes: Changes }),
  'payee.deleted': z.object({ id: Id }),
  'payee.merged': z.object({
    mergeId: Id,
    sourcePayeeId: Id,
    targetPayeeId: Id,
    transactionIds: z.array(Id),
  }),
  'payee.unmerged': z.object({
    mergeId: Id,
    sourcePayeeId: Id,
    targetPayeeId: Id,
    transactionIds: z.array(Id),
  }),

  'tag.created': z.object({ tag: TagResource }),
  'tag.updated': z.object({ tag: TagResource, changes: Changes }),
  'tag.deleted': z.object({ id: Id }),

  'flag.created': z.object({ flag: FlagResource }),
  'flag.updated': z.object({ flag: FlagResource, changes: Changes }),
  'flag.deleted': z.object({ id: Id }),

  'rule.created': z.object({ rule: RuleResource }),
  'rule.updated': z.object({ rule: RuleResource, changes: Changes }),
  'rule.deleted': z.object({ id: Id }),
  'rule.applied': z.object({
    ruleId: Id.nullable(),
    changedCount: z.number().int(),
    transactionIds: z.array(Id),
    truncated: z.boolean(),
  }),

  'recurrence.priceChanged': z.object({
    recurrenceId: Id,
    suggestionKey: z.string(),
    name: z.string(),
    scheduledAmountCents: Cents,
    observedAmountCents: Cents,
    transactionIds: z.array(Id),
  }),
  'recurrence.dueSoon': z.object({
    recurrenceId: Id,
    name: z.string(),
    accountId: Id,
    date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    amountCents: Cents,
  }),
  'change.refused': z.object({
    clientId: Id,
    mutationId: z.number().int(),
    operation: z.string(),
    targetId: Id.nullable(),
    status: z.number().int(),
    code: z.string(),
    message: z.string(),
  }),
  'webhook.disabled': z.object({ subscription: WebhookSubscriptionResource, reason: z.string() }),
  'bankConnection.needsAttention': z.object({ connection: BankConnectionResource, reason: z.string() }),

  'budget.overrun': z.object({
    householdId: Id,
    month: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/),
    categoryId: Id,
    availableCents: Cents,
  }),
} as const

/** The name of an event type, such as `transaction.created`. */
export type EventType = keyof typeof EVENT_SCHEMAS

/** What an event of type `T` carries in its `data`. */
export type EventData<T extends EventType> = z.input<(typeof EVENT_SCHEMAS)[T]>

/** Every event type, in catalog order; webhook subscriptions choose from these. */
export const EVENT_TYPES = Object.keys(EVENT_SCHEMAS) as EventType[]

/** Whether a string names an event type of the catalog. */
export function isEventType(type: string): type is EventType {
  return Object.hasOwn(EVENT_SCHEMAS, type)
}
