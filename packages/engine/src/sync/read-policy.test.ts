import { describe, expect, it } from 'vitest'
import type { Query } from '../mutator/define.ts'
import { operations } from '../registry.ts'
import { SCOPES } from '../scopes.ts'
import {
  canReadRow,
  canReadTable,
  creatorOrOwner,
  ownRows,
  READ_POLICY,
  type ReadPolicy,
  readableChanges,
  type ScopedTable,
} from './read-policy.ts'

const alice = 'user-alice'
const bob = 'user-bob'
const everything = { scopes: SCOPES }

/** The real policy plus two tables with row rules, as notifications and AI conversations will be. */
const withRules: ReadPolicy = {
  ...READ_POLICY,
  notifications: { read: 'read:notifications', rowRule: ownRows(), why: 'Each member’s own.' },
  conversations: { read: 'ai:chat', rowRule: creatorOrOwner(), why: 'Their creator’s, and owners’.' },
}

describe('row rules', () => {
  it('gives a per-user row to its user alone, whatever their role', () => {
    const rule = ownRows()
    expect(rule({ user_id: alice }, { userId: alice, role: 'member' })).toBe(true)
    expect(rule({ user_id: alice }, { userId: bob, role: 'owner' })).toBe(false)
    expect(rule({}, { userId: bob, role: 'owner' })).toBe(false)
    expect(ownRows('recipient_id')({ recipient_id: bob }, { userId: bob, role: 'member' })).toBe(true)
  })

  it('gives a created row to its creator and to every owner, but not to other members', () => {
    const rule = creatorOrOwner()
    expect(rule({ created_by: alice }, { userId: alice, role: 'member' })).toBe(true)
    expect(rule({ created_by: alice }, { userId: bob, role: 'owner' })).toBe(true)
    expect(rule({ created_by: alice }, { userId: bob, role: 'member' })).toBe(false)
  })
})

describe('the read policy', () => {
  it('sends nothing of a table it does not name, whatever the scopes', () => {
    for (const table of ['webhook_secrets', 'constructor', 'toString', '__proto__', '']) {
      expect(canReadTable(table, everything)).toBe(false)
      expect(canReadRow(table, { id: 'x' }, everything)).toBe(false)
    }
  })

  it('never sends a server-only or device-only table, whatever the scopes', () => {
    for (const table of ['users', 'api_keys', 'idempotency_keys', 'change_log', 'device_undo']) {
      expect(canReadTable(table, everything)).toBe(false)
    }
  })

  it('gives exchange rates to keys that read transactions, as REST does, not to account readers', () => {
    expect(canReadTable('exchange_rates', { scopes: ['read:transactions'] })).toBe(true)
    expect(canReadTable('exchange_rates', { scopes: ['read:accounts', 'read:households'] })).toBe(false)
  })

  it('filters a delta by scope, and a row-ruled table by each upsert’s row', () => {
    const changes = [
      { table: 'accounts', row: { id: 'a' } },
      { table: 'notifications', row: { id: 'n1', user_id: alice } },
      { table: 'notifications', row: { id: 'n2', user_id: bob } },
      { table: 'notifications', row: null },
      { table: 'conversations', row: { id: 'c1', created_by: bob } },
      { table: 'api_keys', row: { id: 'k' } },
      { table: 'api_keys', row: null },
    ]
    const ids = (reader: Parameters<typeof readableChanges>[1]) =>
      readableChanges(changes, reader, withRules).map((c) => c.row?.id ?? `${c.table}:delete`)

    expect(ids({ scopes: SCOPES, userId: alice, role: 'member' })).toEqual([
      'a',
      'n1',
      'notifications:delete',
    ])
    expect(ids({ scopes: SCOPES, userId: alice, role: 'owner' })).toEqual([
      'a',
      'n1',
      'notifications:delete',
      'c1',
    ])
    expect(ids({ scopes: ['read:accounts'], userId: alice, role: 'owner' })).toEqual(['a'])
  })

  it('gives no row-ruled rows to a reader with no member to judge by', () => {
    const row = { id: 'n1', user_id: alice }
    expect(canReadRow('notifications', row, { scopes: SCOPES }, withRules)).toBe(false)
    expect(
      canReadRow('notifications', row, { scopes: SCOPES, userId: alice, role: 'member' }, withRules),
    ).toBe(true)
  })
})

/**
 * The REST reads (list and get queries) that show each synced table's rows. Typed over every
 * table the policy gives a scope, so a new synced table needs its readers named here too.
 */
const REST_READERS: { [T in ScopedTable]: Query[] } = {
  households: [operations.households.get],
  memberships: [operations.members.list],
  accounts: [operations.accounts.list, operations.accounts.get],
  exchange_rates: [operations.exchangeRates.list],
  transactions: [operations.transactions.list, operations.transactions.get],
  transaction_splits: [operations.transactions.get],
  transaction_tags: [operations.transactions.list, operations.transactions.get],
  transaction_flags: [operations.transactions.list, operations.transactions.get],
  flags: [operations.flags.list, operations.flags.get],
  category_groups: [operations.categoryGroups.list, operations.categoryGroups.get],
  categories: [operations.categories.list, operations.categories.get],
  payees: [operations.payees.list, operations.payees.get],
  payee_aliases: [operations.payees.listAliases],
  payee_merges: [operations.payees.listMerges],
  payee_category_rejections: [operations.payees.rejectedCategories],
  tags: [operations.tags.list, operations.tags.get],
  budget_cells: [operations.budgets.get, operations.budgets.getCategory],
  budget_history: [operations.budgets.history],
  budget_activity: [operations.budgets.get, operations.budgets.getCategory],
  rules: [operations.rules.list, operations.rules.get],
  rule_applications: [operations.rules.applications],
  rule_runs: [operations.rules.applications],
  loan_terms: [operations.loans.termsHistory],
  recurrences: [operations.recurrences.list, operations.recurrences.get],
  recurrence_dismissals: [operations.recurrences.suggestions],
  import_batches: [operations.imports.list, operations.imports.get],
  import_mappings: [operations.imports.getMapping],
  notifications: [operations.notifications.list, operations.notificationFeed.list],
}

describe('sync and REST', () => {
  it.each(Object.entries(REST_READERS))('ask the same scope to read %s', (table, readers) => {
    const { read } = READ_POLICY[table as ScopedTable]
    expect(readers.map((q) => [q.name, q.scope])).toEqual(readers.map((q) => [q.name, read]))
  })
})
