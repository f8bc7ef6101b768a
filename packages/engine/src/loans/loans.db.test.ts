import { operations } from '@hearth/engine'
import { describe, expect, it } from 'vitest'
import { ledgerHousehold, newAccount } from '../ledger/test-fixture.ts'

const first = {
  effectiveDate: '2024-01-01',
  principalCents: 20_000_000,
  annualRatePercent: '6.5',
  termMonths: 360,
  firstPaymentDate: '2024-02-01',
}

describe('loan terms in force', () => {
  it('projects with the terms in force on the caller’s day, a change taking over from its date', async () => {
    const h = await ledgerHousehold()
    const loan = await newAccount(h, { name: 'Mortgage', type: 'loan' })
    await h.run(operations.loans.setTerms, { id: loan.id, ...first })
    const change = await h.run(operations.loans.setTerms, {
      id: loan.id,
      effectiveDate: '2026-06-01',
      annualRatePercent: '5',
    })
    const before = await h.read(
      operations.loans.projection,
      { id: loan.id },
      { now: new Date('2026-05-31T12:00:00Z') },
    )
    expect(before.terms.annualRatePercent).toBe('6.5')
    expect(before.paymentCents).toBe('126414')
    const after = await h.read(
      operations.loans.projection,
      { id: loan.id },
      { now: new Date('2026-06-01T12:00:00Z') },
    )
    expect(after.terms).toEqual(change)
    expect(after.paymentCents).toBe(change.paymentCents)
    // The change re-amortizes what is left over what is left of the term: it still ends in 2054-01.
    expect(after.payoffYearMonth).toBe('2054-01')
    expect(after.schedule[0]!.date).toBe('2026-06-01')
    // Before the first effective date, the first terms are shown.
    const early = await h.read(
      operations.loans.projection,
      { id: loan.id },
      { now: new Date('2023-06-01T12:00:00Z') },
    )
    expect(early.terms.effectiveDate).toBe('2024-01-01')
  })

  it('takes "this month" in the caller’s time zone', async () => {
    const h = await ledgerHousehold({ timeZone: 'Pacific/Auckland' })
    const loan = await newAccount(h, { name: 'Mortgage', type: 'loan' })
    await h.run(operations.loans.setTerms, { id: loan.id, ...first })
    // 23:30 UTC on 31 May is already 1 June in Auckland: June's payment is the first a what-if touches.
    const now = new Date('2026-05-31T23:30:00Z')
    const sim = await h.read(operations.loans.simulation, { id: loan.id, oneTimeExtraCents: 100 }, { now })
    expect(sim.asOf).toBe('2026-06-01')
    expect(sim.thisMonth.yearMonth).toBe('2026-06')
    expect(sim.schedule.find((r) => r.extraCents === '100')!.date).toBe('2026-06-01')
  })

  it('names a date’s terms alike on every replica, and the database holds the rate’s bounds', async () => {
    const h = await ledgerHousehold()
    const loan = await newAccount(h, { name: 'Mortgage', type: 'loan' })
    const a = await h.run(operations.loans.setTerms, { id: loan.id, ...first })
    const b = await h.run(operations.loans.setTerms, { id: loan.id, ...first, escrowCents: 100 })
    expect(b.id).toBe(a.id)
    const other = await newAccount(h, { name: 'Car', type: 'loan' })
    expect((await h.run(operations.loans.setTerms, { id: other.id, ...first })).id).not.toBe(a.id)
    await expect(
      h.store.db
        .updateTable('loan_terms')
        .set({ annual_rate_units: 1_000_001 })
        .where('household_id', '=', h.ctx.householdId)
        .where('id', '=', a.id)
        .execute(),
    ).rejects.toThrow(/check/)
    expect((await h.read(operations.loans.termsHistory, { id: loan.id })).items).toEqual([b])
  })
})
