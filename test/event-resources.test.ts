import {
  AccountSchema,
  CategoryGroupSchema,
  CategorySchema,
  ExchangeRateSchema,
  FlagSchema,
  PayeeSchema,
  TagSchema,
  TransactionSchema,
} from '@hearth/contracts'
import { EVENT_SCHEMAS, type EventType, operations, parseEvent, runMutation } from '@hearth/engine'
import { newHousehold, sharedStore } from '@hearth/test'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'

/** The API's schema of each resource an event carries, by the name the catalog gives it. */
const API_RESOURCES: Record<string, z.ZodObject> = {
  Account: AccountSchema,
  Category: CategorySchema,
  CategoryGroup: CategoryGroupSchema,
  ExchangeRate: ExchangeRateSchema,
  Flag: FlagSchema,
  Payee: PayeeSchema,
  Tag: TagSchema,
  Transaction: TransactionSchema,
}

/** The resource name of a payload field, looking through `nullable` and `optional`. */
function resourceOf(field: z.ZodType): string | undefined {
  let inner: z.ZodType = field
  while (inner instanceof z.ZodNullable || inner instanceof z.ZodOptional) inner = inner.unwrap() as z.ZodType
  return inner.description && inner.description in API_RESOURCES ? inner.description : undefined
}

/** Each payload field that holds a resource, by event type. */
const RESOURCE_FIELDS = Object.fromEntries(
  Object.entries(EVENT_SCHEMAS).map(([type, schema]) => [
    type,
    Object.entries((schema as z.ZodObject).shape).flatMap(([key, field]) => {
      const name = resourceOf(field as z.ZodType)
      return name ? [{ key, name }] : []
    }),
  ]),
) as Record<EventType, { key: string; name: string }[]>

describe('resources in events', () => {
  it('are exactly the objects the REST API returns, field for field', async () => {
    const store = await sharedStore()
    const ctx = await newHousehold(store)
    const run = async (op: Parameters<typeof runMutation>[1], args: unknown) =>
      (await runMutation(store.db, op, args, ctx)).result as { id: string }
    const account = await run(operations.accounts.create, {
      id: ulid(),
      name: 'Checking',
      type: 'cash',
      openingBalanceCents: 10_000,
    })
    const savings = await run(operations.accounts.create, { id: ulid(), name: 'Savings', type: 'cash' })
    const group = await run(operations.categoryGroups.create, { id: ulid(), name: 'Bills' })
    const category = await run(operations.categories.create, { id: ulid(), groupId: group.id, name: 'Rent' })
    await run(operations.categoryGroups.update, { id: group.id, name: 'Monthly bills' })
    const tag = await run(operations.tags.create, { id: ulid(), name: 'Trip' })
    await run(operations.flags.create, { id: ulid(), name: 'Check', color: '#00ff00' })
    const row = await run(operations.transactions.create, {
      id: ulid(),
      accountId: account.id,
      date: '2024-03-10',
      amountCents: -1250,
      payeeName: 'Corner shop',
      tagIds: [tag.id],
      splits: [{ amountCents: -1000, categoryId: category.id }, { amountCents: -250 }],
    })
    await run(operations.transactions.update, { id: row.id, memo: 'groceries' })
    await run(operations.transactions.transfer, {
      fromTransactionId: ulid(),
      toTransactionId: ulid(),
      fromAccountId: account.id,
      toAccountId: savings.id,
      date: '2024-03-11',
      amountCents: 500,
    })
    await run(operations.exchangeRates.upsert, { fromCurrency: 'USD', toCurrency: 'EUR', rate: '0.92' })
    await run(operations.accounts.reconcile, {
      id: account.id,
      statementBalanceCents: 9000,
      statementDate: '2024-03-31',
      adjustmentId: ulid(),
    })
    await run(operations.accounts.close, { id: savings.id, adjustmentId: ulid() })

    const rows = await store.db
      .selectFrom('outbox')
      .select('payload')
      .where('household_id', '=', ctx.householdId)
      .where('topic', '=', 'event')
      .orderBy('id')
      .execute()
    const checked = new Set<string>()
    for (const event of rows.map((r) => parseEvent(r.payload))) {
      for (const { key, name } of RESOURCE_FIELDS[event.type]) {
        const value = (event.data as Record<string, unknown>)[key]
        if (value === null || value === undefined) continue
        const parsed = API_RESOURCES[name]!.strict().safeParse(value)
        expect(parsed.error?.issues, `${event.type}.${key}`).toBeUndefined()
        checked.add(name)
      }
    }
    expect([...checked].sort()).toEqual(Object.keys(API_RESOURCES).sort())
  })
})
