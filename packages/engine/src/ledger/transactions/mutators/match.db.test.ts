import { operations } from '@hearth/engine'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import {
  expectBalancesExact,
  type LedgerHousehold,
  ledgerHousehold,
  newAccount,
  newCategory,
  newTag,
  newTransaction,
} from '../../test-fixture.ts'

function importRow(h: LedgerHousehold, accountId: string, args: Record<string, unknown>) {
  return newTransaction(h, accountId, { importedId: ulid(), ...args })
}

describe('match candidates', () => {
  it('lists twins of the other kind: same account and amount, within 7 days', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const other = await newAccount(h, { name: 'Other' })
    const hand = await newTransaction(h, account.id, { amountCents: -999, date: '2024-03-10' })
    const near = await importRow(h, account.id, { amountCents: -999, date: '2024-03-12' })
    const edge = await importRow(h, account.id, { amountCents: -999, date: '2024-03-17' })
    await importRow(h, account.id, { amountCents: -999, date: '2024-03-18' })
    await importRow(h, account.id, { amountCents: -998, date: '2024-03-10' })
    await importRow(h, other.id, { amountCents: -999, date: '2024-03-10' })
    const sameKind = await newTransaction(h, account.id, { amountCents: -999, date: '2024-03-11' })
    const forHand = await h.read(operations.transactions.matchCandidates, { id: hand.id })
    expect(forHand.items.map((t) => t.id)).toEqual([near.id, edge.id])
    const forBank = await h.read(operations.transactions.matchCandidates, { id: near.id })
    expect(forBank.items.map((t) => t.id)).toEqual([sameKind.id, hand.id])
  })
})

describe('transactions.match and transactions.unmatch', () => {
  it('keeps the hand-entered row with the bank date, cleared, and folds the bank row in', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h, { openingBalanceCents: 10000 })
    const category = await newCategory(h)
    const tag = await newTag(h, 'work')
    const hand = await newTransaction(h, account.id, {
      amountCents: -2500,
      date: '2024-03-08',
      payeeName: 'Cafe',
      memo: 'team lunch',
      tagIds: [tag],
      splits: [
        { amountCents: -2000, categoryId: category },
        { amountCents: -500, categoryId: category },
      ],
    })
    const bank = await importRow(h, account.id, {
      amountCents: -2500,
      date: '2024-03-10',
      memo: 'CARD 1234 CAFE',
    })
    const survivor = await h.run(operations.transactions.match, { id: bank.id, candidateId: hand.id })
    expect(survivor).toMatchObject({
      id: hand.id,
      date: '2024-03-10',
      status: 'cleared',
      payeeId: hand.payeeId,
      memo: 'team lunch',
      tagIds: [tag],
      matchedTransactionId: bank.id,
    })
    expect(survivor.splits).toHaveLength(2)
    await expect(h.read(operations.transactions.get, { id: bank.id })).rejects.toMatchObject({ status: 404 })
    const { items } = await h.read(operations.transactions.list, {})
    expect(items.map((t) => t.id)).not.toContain(bank.id)
    expect(await h.read(operations.accounts.get, { id: account.id })).toMatchObject({
      balanceCents: '7500',
      clearedBalanceCents: '7500',
    })
    await expectBalancesExact(h)
  })

  it('restores both rows exactly on unmatch, named by either row', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const hand = await newTransaction(h, account.id, { amountCents: -700, date: '2024-03-01' })
    const bank = await importRow(h, account.id, { amountCents: -700, date: '2024-03-04' })
    await h.run(operations.transactions.match, { id: hand.id, candidateId: bank.id })
    const { transactions } = await h.run(operations.transactions.unmatch, { id: bank.id })
    const strip = ({ updatedAt: _, ...rest }: { updatedAt: string }) => rest
    expect(transactions.map(strip)).toEqual([strip(hand), strip(bank)])
    expect(strip(await h.read(operations.transactions.get, { id: bank.id }))).toEqual(strip(bank))
    await h.run(operations.transactions.match, { id: hand.id, candidateId: bank.id })
    await h.run(operations.transactions.unmatch, { id: hand.id })
    expect(strip(await h.read(operations.transactions.get, { id: hand.id }))).toEqual(strip(hand))
    await expect(h.run(operations.transactions.unmatch, { id: hand.id })).rejects.toMatchObject({
      status: 409,
      code: 'NOT_MATCHED',
    })
    await expectBalancesExact(h)
  })

  it('refuses to unmatch a reconciled pair and to match a reconciled row', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const hand = await newTransaction(h, account.id, { amountCents: -700, date: '2024-03-01' })
    const bank = await importRow(h, account.id, { amountCents: -700, date: '2024-03-04' })
    const locked = await newTransaction(h, account.id, {
      amountCents: -40,
      date: '2024-03-02',
      status: 'cleared',
    })
    await h.run(operations.transactions.match, { id: hand.id, candidateId: bank.id })
    await h.run(operations.accounts.reconcile, {
      id: account.id,
      statementBalanceCents: -740,
      statementDate: '2024-03-31',
      adjustmentId: ulid(),
    })
    await expect(h.run(operations.transactions.unmatch, { id: hand.id })).rejects.toMatchObject({
      status: 409,
      code: 'TRANSACTION_RECONCILED',
    })
    const late = await importRow(h, account.id, { amountCents: -40, date: '2024-03-06' })
    await expect(
      h.run(operations.transactions.match, { id: late.id, candidateId: locked.id }),
    ).rejects.toMatchObject({
      status: 409,
      code: 'TRANSACTION_RECONCILED',
    })
    const again = await importRow(h, account.id, { amountCents: -700, date: '2024-03-05' })
    await expect(
      h.run(operations.transactions.match, { id: again.id, candidateId: hand.id }),
    ).rejects.toMatchObject({
      status: 409,
      code: 'TRANSACTION_ALREADY_MATCHED',
    })
    await expectBalancesExact(h)
  })

  it('refuses rows of the same kind or that are not twins', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const a = await newTransaction(h, account.id, { amountCents: -700 })
    const b = await newTransaction(h, account.id, { amountCents: -700 })
    const far = await importRow(h, account.id, { amountCents: -700, date: '2024-04-30' })
    const other = await importRow(h, account.id, { amountCents: -701 })
    for (const [id, candidateId] of [
      [a.id, b.id],
      [a.id, far.id],
      [other.id, a.id],
    ]) {
      await expect(h.run(operations.transactions.match, { id, candidateId })).rejects.toMatchObject({
        status: 400,
        code: 'NOT_A_MATCH_CANDIDATE',
      })
    }
  })
})

describe('transactions.dismissMatch', () => {
  it('clears the possible-duplicate marker of an ambiguous import', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    await newTransaction(h, account.id, { amountCents: -300, date: '2024-03-01' })
    await newTransaction(h, account.id, { amountCents: -300, date: '2024-03-02' })
    const { items } = await h.run(operations.transactions.bulkCreate, {
      transactions: [
        { id: ulid(), accountId: account.id, date: '2024-03-01', amountCents: -300, importedId: 'z' },
      ],
    })
    expect(items[0]!.possibleDuplicate).toBe(true)
    const dismissed = await h.run(operations.transactions.dismissMatch, { id: items[0]!.id })
    expect(dismissed.possibleDuplicate).toBe(false)
    expect((await h.run(operations.transactions.dismissMatch, { id: items[0]!.id })).possibleDuplicate).toBe(
      false,
    )
  })
})

describe('category suggestions', () => {
  it('accepts a suggestion into the category and clears it', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const category = await newCategory(h)
    const row = await newTransaction(h, account.id)
    const suggested = await h.run(operations.transactions.suggestCategory, {
      id: row.id,
      categoryId: category,
      confidence: 0.75,
      reason: 'payee history',
    })
    expect(suggested).toMatchObject({ suggestedCategoryId: category, suggestionConfidence: 0.75 })
    const accepted = await h.run(operations.transactions.acceptSuggestion, { id: row.id })
    expect(accepted).toMatchObject({
      categoryId: category,
      suggestedCategoryId: null,
      suggestionConfidence: null,
      suggestionReason: null,
      needsReview: false,
    })
    await expect(h.run(operations.transactions.acceptSuggestion, { id: row.id })).rejects.toMatchObject({
      status: 409,
      code: 'NO_SUGGESTION',
    })
    await expect(
      h.run(operations.transactions.suggestCategory, { id: row.id, categoryId: category }),
    ).rejects.toMatchObject({
      status: 409,
      code: 'TRANSACTION_CATEGORIZED',
    })
  })

  it('rejects a suggestion and leaves the row uncategorized', async () => {
    const h = await ledgerHousehold()
    const account = await newAccount(h)
    const category = await newCategory(h)
    const row = await newTransaction(h, account.id, { needsReview: true })
    await h.run(operations.transactions.suggestCategory, { id: row.id, categoryId: category })
    const rejected = await h.run(operations.transactions.rejectSuggestion, { id: row.id })
    expect(rejected).toMatchObject({ categoryId: null, suggestedCategoryId: null, needsReview: false })
    await expect(h.run(operations.transactions.rejectSuggestion, { id: row.id })).rejects.toMatchObject({
      status: 409,
      code: 'NO_SUGGESTION',
    })
  })
})
