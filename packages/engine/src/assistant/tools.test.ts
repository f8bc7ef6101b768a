import { describe, expect, it } from 'vitest'
import { operations } from '../registry.ts'
import { SCOPES } from '../scopes.ts'
import { toolsFor } from './tools.ts'

const owner = { householdId: 'h', userId: 'u', role: 'owner', scopes: [...SCOPES], now: new Date() } as const

/** Every operation that may be a tool, by domain: a new one is added here on purpose, or stays out. */
const MAY_BE_TOOLS: Record<string, string[]> = {
  accounts: 'balanceHistory close convert create delete get list reconcile reopen reorder update'.split(' '),
  budgets:
    'ageOfMoney assign autoAssignFromGoals copyFrom deleteCategory get getCategory history move reset'.split(
      ' ',
    ),
  catalog: ['seedStarterPack'],
  categories: 'create delete get list reorder update'.split(' '),
  categoryGroups: 'create delete get list update'.split(' '),
  exchangeRates: 'delete list upsert'.split(' '),
  flags: 'create delete get list update'.split(' '),
  forecasts: ['get'],
  imports: 'commit get getMapping list preview saveMapping undo'.split(' '),
  loans: 'deleteTerms projection setTerms simulation termsHistory'.split(' '),
  notifications: 'dismiss list markAllRead markRead'.split(' '),
  payees:
    'create createAlias dedupeCandidates delete deleteAlias duplicateGroups get list listAliases listMerges merge page rejectedCategories unmerge update'.split(
      ' ',
    ),
  recurrences:
    'acceptSuggestion create delete dismissSuggestion get list materializeNow pause resume suggestions undismissSuggestion upcoming update'.split(
      ' ',
    ),
  reports: 'ageOfMoney cashFlow largestTransactions netWorth spending'.split(' '),
  rules: 'applications apply applyAll create delete get list preview update'.split(' '),
  tags: 'create delete get list update'.split(' '),
  transactions:
    'acceptSuggestion bulkCreate bulkUpdate create dailySummary delete dismissMatch get linkTransfer list match matchCandidates rejectSuggestion removeTag stalePendingCount suggestCategory transfer transferCandidates unlinkTransfer unmatch update'.split(
      ' ',
    ),
}

describe('assistant tools', () => {
  const names = toolsFor(owner, () => operations.byName).map((t) => t.operation)

  it('are exactly the listed operations for an owner with every scope', () => {
    const listed = Object.entries(MAY_BE_TOOLS).flatMap(([domain, verbs]) =>
      verbs.map((v) => `${domain}.${v}`),
    )
    expect(names).toEqual(listed.sort())
  })

  it('never include identity, key, invitation, membership, household or assistant operations', () => {
    const never = [...operations.byName.keys()].filter((n) =>
      /^(users|apiKeys|profile|members|invitations|households|ai[A-Z]\w*|webhooks)\./.test(n),
    )
    expect(never).toEqual(
      expect.arrayContaining([
        'invitations.create',
        'invitations.redeem',
        'households.leave',
        'members.remove',
      ]),
    )
    for (const n of never) expect(names).not.toContain(n)
  })
})
