import {
  AmortizationRowSchema,
  LoanMonthSplitSchema,
  LoanProjectionSchema,
  LoanSimulationSchema,
  LoanTermsSchema,
} from '@hearth/contracts'
import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import type { ApiClient } from '../src/index.ts'
import { useTestServer } from '../src/index.ts'
import { expectProblem, expectStatus, H } from './catalog-fixture.ts'
import { createAccount, createTransaction } from './ledger-fixture.ts'

const server = useTestServer()

/** A loan account with the 30-year $200,000 mortgage at 6.5% that docs/loans.md works through. */
async function mortgage(api: ApiClient, terms: Record<string, unknown> = {}) {
  const loan = await createAccount(api, { name: 'Mortgage', type: 'loan' })
  const set = await api.put(`${H}/accounts/${loan.id}/loan-terms`, {
    effectiveDate: '2039-12-15',
    principalCents: 20_000_000,
    annualRatePercent: '6.5',
    termMonths: 360,
    firstPaymentDate: '2040-01-01',
    ...terms,
  })
  return { loan, terms: expectStatus(set, 200) }
}

/** Parses `body` with a contract schema and checks it has exactly the schema's fields, no more. */
function expectContract(schema: z.ZodObject, body: any) {
  schema.parse(body)
  expect(Object.keys(body).sort()).toEqual(Object.keys(schema.shape).sort())
}

const path = (accountId: string, what: string, query = '') => `${H}/accounts/${accountId}/${what}${query}`

describe('loan terms over HTTP', () => {
  it('stores the first terms with the level payment their term implies', async () => {
    const { api } = await server.newOwner()
    const { loan, terms } = await mortgage(api)
    expect(terms).toMatchObject({
      accountId: loan.id,
      effectiveDate: '2039-12-15',
      principalCents: '20000000',
      annualRatePercent: '6.5',
      paymentCents: '126414',
      escrowCents: '0',
      firstPaymentDate: '2040-01-01',
      termMonths: 360,
    })
    const history = expectStatus(await api.get(path(loan.id, 'loan-terms-history')), 200)
    expect(history).toEqual({ accountId: loan.id, items: [terms] })
  })

  it('keeps a dated history, newest first, each change carrying over what it omits', async () => {
    const { api } = await server.newOwner()
    const { loan, terms } = await mortgage(api)
    // A rate change a year in: the balance is where the first terms' schedule left it, and the
    // payment is re-amortized over the 348 payments that remain.
    const change = expectStatus(
      await api.put(path(loan.id, 'loan-terms'), { effectiveDate: '2040-12-20', annualRatePercent: 5 }),
      200,
    )
    const firstYear = expectStatus(await api.get(path(loan.id, 'loan-projection')), 200).schedule.slice(0, 12)
    expect(change).toMatchObject({
      effectiveDate: '2040-12-20',
      firstPaymentDate: '2041-01-01',
      principalCents: firstYear[11].balanceCents,
      annualRatePercent: '5',
      termMonths: 348,
      escrowCents: '0',
    })
    expect(change.paymentCents).not.toBe(terms.paymentCents)
    // Escrow only: everything else, the payment included, stays.
    const escrow = expectStatus(
      await api.put(path(loan.id, 'loan-terms'), { effectiveDate: '2041-06-01', escrowCents: '25000' }),
      200,
    )
    expect(escrow).toMatchObject({
      paymentCents: change.paymentCents,
      annualRatePercent: '5',
      escrowCents: '25000',
      firstPaymentDate: '2041-06-01',
      termMonths: 343,
    })
    const history = expectStatus(await api.get(path(loan.id, 'loan-terms-history')), 200)
    expect(history.items.map((t: any) => t.effectiveDate)).toEqual(['2041-06-01', '2040-12-20', '2039-12-15'])

    // Putting a date again replaces its terms, under the same id.
    const again = expectStatus(
      await api.put(path(loan.id, 'loan-terms'), { effectiveDate: '2041-06-01', escrowCents: 30000 }),
      200,
    )
    expect(again).toMatchObject({ id: escrow.id, escrowCents: '30000' })
    expect(expectStatus(await api.get(path(loan.id, 'loan-terms-history')), 200).items).toHaveLength(3)
  })

  it('takes back one date’s terms, the terms before it in force again', async () => {
    const { api } = await server.newOwner()
    const { loan, terms } = await mortgage(api)
    expectStatus(
      await api.put(path(loan.id, 'loan-terms'), { effectiveDate: '2039-12-20', annualRatePercent: '7' }),
      200,
    )
    expect(expectStatus(await api.get(path(loan.id, 'loan-terms-history')), 200).items).toHaveLength(2)
    expect((await api.delete(path(loan.id, 'loan-terms/2039-12-20'))).status).toBe(204)
    expect(expectStatus(await api.get(path(loan.id, 'loan-terms-history')), 200).items).toEqual([terms])
    expect(expectStatus(await api.get(path(loan.id, 'loan-projection')), 200).terms).toEqual(terms)
    expectProblem(await api.delete(path(loan.id, 'loan-terms/2039-12-20')), 404, 'NOT_FOUND')
    expectProblem(await api.delete(path(loan.id, 'loan-terms/2039-13-01')), 400, 'VALIDATION_FAILED')
    const cash = await createAccount(api, { name: 'Checking', type: 'cash' })
    expectProblem(await api.delete(path(cash.id, 'loan-terms/2039-12-15')), 422, 'NOT_A_LOAN_ACCOUNT')
  })

  it('refuses incomplete, malformed or never-ending terms, writing nothing', async () => {
    const { api } = await server.newOwner()
    const loan = await createAccount(api, { name: 'Car loan', type: 'loan' })
    const put = (body: Record<string, unknown>) => api.put(path(loan.id, 'loan-terms'), body)
    const missing = expectProblem(
      await put({ effectiveDate: '2026-01-01', annualRatePercent: '4' }),
      400,
      'INVALID_LOAN_TERMS',
    )
    expect(missing.errors.map((e: any) => e.path)).toEqual(['principalCents'])
    const noPayment = expectProblem(
      await put({ effectiveDate: '2026-01-01', principalCents: 100000, annualRatePercent: '4' }),
      400,
      'INVALID_LOAN_TERMS',
    )
    expect(noPayment.errors).toEqual([expect.objectContaining({ path: 'paymentCents' })])
    const early = expectProblem(
      await put({
        effectiveDate: '2026-01-01',
        principalCents: 100000,
        annualRatePercent: '4',
        termMonths: 12,
        firstPaymentDate: '2025-12-01',
      }),
      400,
      'INVALID_LOAN_TERMS',
    )
    expect(early.errors).toEqual([expect.objectContaining({ path: 'firstPaymentDate' })])
    for (const [field, value] of [
      ['annualRatePercent', '6.12345'],
      ['annualRatePercent', '101'],
      ['annualRatePercent', -1],
      ['annualRatePercent', 1e-7],
      ['principalCents', 0],
      ['principalCents', 1.5],
      ['paymentCents', -5],
      ['escrowCents', -1],
      ['termMonths', 0],
      ['termMonths', 1201],
      ['effectiveDate', '2026-02-30'],
    ] as const) {
      const body = {
        effectiveDate: '2026-01-01',
        principalCents: 100000,
        annualRatePercent: '4',
        termMonths: 12,
      }
      const problem = expectProblem(await put({ ...body, [field]: value }), 400, 'VALIDATION_FAILED')
      expect(problem.errors.map((e: any) => e.path)).toContain(field)
    }
    // 1% a month on 1,000.00 is 10.00; a 10.00 payment never pays it off.
    const low = expectProblem(
      await put({
        effectiveDate: '2026-01-01',
        principalCents: 100000,
        annualRatePercent: '12',
        paymentCents: 1000,
      }),
      422,
      'LOAN_PAYMENT_TOO_LOW',
    )
    expect(Number(low.minimumPaymentCents)).toBeGreaterThan(1000)
    expect(low.errors).toEqual([expect.objectContaining({ path: 'paymentCents' })])
    expect(expectStatus(await api.get(path(loan.id, 'loan-terms-history')), 200).items).toEqual([])
    // The least payment it names is accepted.
    expectStatus(
      await put({
        effectiveDate: '2026-01-01',
        principalCents: 100000,
        annualRatePercent: '12',
        paymentCents: low.minimumPaymentCents,
      }),
      200,
    )
  })
})

describe('loan projection over HTTP', () => {
  it('amortizes the terms in force: payment, payoff month, totals, and a last payment that clears the balance', async () => {
    const { api } = await server.newOwner()
    const { loan, terms } = await mortgage(api)
    const projection = expectStatus(await api.get(path(loan.id, 'loan-projection')), 200)
    expect(projection).toMatchObject({
      accountId: loan.id,
      terms,
      paymentCents: '126414',
      escrowCents: '0',
      extraMonthlyCents: '0',
      paymentCount: 360,
      payoffYearMonth: '2069-12',
      payoffDate: '2069-12-01',
      totalInterestCents: '25508582',
      remainingInterestCents: '25508582',
    })
    expect(projection.schedule).toHaveLength(360)
    expectContract(LoanProjectionSchema, projection)
    expectContract(LoanTermsSchema, projection.terms)
    expectContract(AmortizationRowSchema, projection.schedule[0])
    expectContract(LoanMonthSplitSchema, projection.thisMonth)
    expect(projection.schedule[0]).toEqual({
      number: 1,
      date: '2040-01-01',
      paymentCents: '126414',
      principalCents: '18081',
      interestCents: '108333',
      escrowCents: '0',
      extraCents: '0',
      balanceCents: '19981919',
    })
    expect(projection.schedule.at(-1).balanceCents).toBe('0')
    const principal = projection.schedule.reduce((s: bigint, r: any) => s + BigInt(r.principalCents), 0n)
    expect(principal).toBe(20_000_000n)
  })

  it('pays off sooner with extra principal every month', async () => {
    const { api } = await server.newOwner()
    const { loan } = await mortgage(api)
    const plain = expectStatus(await api.get(path(loan.id, 'loan-projection')), 200)
    const extra = expectStatus(
      await api.get(path(loan.id, 'loan-projection', '?extraMonthlyCents=20000')),
      200,
    )
    expect(extra.extraMonthlyCents).toBe('20000')
    expect(extra.paymentCount).toBeLessThan(plain.paymentCount)
    expect(BigInt(extra.totalInterestCents)).toBeLessThan(BigInt(plain.totalInterestCents))
    expect(extra.schedule[0]).toMatchObject({
      principalCents: '38081',
      extraCents: '20000',
      paymentCents: '146414',
    })
    expect(extra.schedule.at(-1).balanceCents).toBe('0')
  })

  it("splits this month's ledger payment into interest, escrow and principal", async () => {
    const { api } = await server.newOwner()
    const loan = await createAccount(api, {
      name: 'Mortgage',
      type: 'loan',
      openingBalanceCents: -20_000_000,
    })
    // Terms that began two years ago, so this month has a scheduled payment.
    const probe = expectStatus(await api.get(`${H}/accounts/${loan.id}/balance-history`), 200)
    const today: string = probe.toDate
    const [y, m] = today.split('-').map(Number) as [number, number]
    const start = `${y - 2}-${String(m).padStart(2, '0')}-01`
    expectStatus(
      await api.put(path(loan.id, 'loan-terms'), {
        effectiveDate: start,
        principalCents: 20_000_000,
        annualRatePercent: '6.5',
        termMonths: 360,
        escrowCents: 30_000,
        firstPaymentDate: start,
      }),
      200,
    )
    await createTransaction(api, loan.id, { date: today, amountCents: 156_414 + 5_000 })
    const projection = expectStatus(await api.get(path(loan.id, 'loan-projection')), 200)
    expect(projection.asOf).toBe(today)
    const row = projection.schedule[24]
    expect(row.date.slice(0, 7)).toBe(today.slice(0, 7))
    expect(projection.thisMonth).toEqual({
      yearMonth: today.slice(0, 7),
      scheduledPaymentCents: '156414',
      paidCents: '161414',
      interestCents: row.interestCents,
      escrowCents: '30000',
      principalCents: String(161_414 - 30_000 - Number(row.interestCents)),
    })
    // Interest counts only from this month's payment on.
    const paidInterest = projection.schedule
      .slice(0, 24)
      .reduce((s: number, r: any) => s + Number(r.interestCents), 0)
    expect(Number(projection.remainingInterestCents)).toBe(
      Number(projection.totalInterestCents) - paidInterest,
    )
  })
})

describe('loan simulation over HTTP', () => {
  it('solves the least whole-cent payment that pays off by a target month', async () => {
    const { api } = await server.newOwner()
    const { loan } = await mortgage(api)
    const sim = expectStatus(
      await api.get(path(loan.id, 'loan-simulation', '?targetPayoffYearMonth=2054-12')),
      200,
    )
    expect(sim.targetPayoffYearMonth).toBe('2054-12')
    expectContract(LoanSimulationSchema, sim)
    expect(sim.payoffYearMonth <= '2054-12').toBe(true)
    expect(sim.paymentCount).toBe(180)
    expect(sim.comparison).toMatchObject({
      basePaymentCents: '126414',
      basePayoffYearMonth: '2069-12',
      baseTotalInterestCents: '25508582',
      monthsSaved: 180,
    })
    expect(BigInt(sim.comparison.interestSavedCents)).toBe(25_508_582n - BigInt(sim.totalInterestCents))
    // 200,000 over 15 years at 6.5%: numpy's pmt gives 1742.2147…, rounded up 1742.22 is the least.
    expect(sim.paymentCents).toBe('174222')
    const oneLess = expectStatus(await api.get(path(loan.id, 'loan-simulation', '?paymentCents=174221')), 200)
    expect(oneLess.payoffYearMonth > '2054-12').toBe(true)
    const same = expectStatus(await api.get(path(loan.id, 'loan-simulation', '?paymentCents=174222')), 200)
    expect(same.schedule).toEqual(sim.schedule)
  })

  it('applies one-time and monthly extras and reports what they save', async () => {
    const { api } = await server.newOwner()
    const { loan } = await mortgage(api)
    const sim = expectStatus(
      await api.get(path(loan.id, 'loan-simulation', '?oneTimeExtraCents=1000000&extraMonthlyCents=10000')),
      200,
    )
    expect(sim.schedule[0]).toMatchObject({
      extraCents: '1010000',
      principalCents: String(18_081 + 1_010_000),
    })
    expect(sim.schedule[1].extraCents).toBe('10000')
    expect(sim.comparison.monthsSaved).toBe(360 - sim.paymentCount)
    expect(sim.comparison.monthsSaved).toBeGreaterThan(0)
    expect(BigInt(sim.comparison.interestSavedCents)).toBeGreaterThan(0n)
    // No what-if at all is the plan itself.
    const none = expectStatus(await api.get(path(loan.id, 'loan-simulation')), 200)
    expect(none.comparison).toMatchObject({ monthsSaved: 0, interestSavedCents: '0' })
  })

  it('refuses a payment that never pays the loan off, naming the least that does', async () => {
    const { api } = await server.newOwner()
    const { loan } = await mortgage(api)
    // The first month's interest is 1,083.33.
    const low = expectProblem(
      await api.get(path(loan.id, 'loan-simulation', '?paymentCents=108333')),
      422,
      'LOAN_PAYMENT_TOO_LOW',
    )
    expect(low.errors).toEqual([expect.objectContaining({ path: 'paymentCents' })])
    const least = BigInt(low.minimumPaymentCents)
    expect(least).toBeGreaterThan(108_333n)
    expectStatus(await api.get(path(loan.id, 'loan-simulation', `?paymentCents=${least}`)), 200)
    expectProblem(
      await api.get(path(loan.id, 'loan-simulation', `?paymentCents=${least - 1n}`)),
      422,
      'LOAN_PAYMENT_TOO_LOW',
    )
  })

  it('refuses a target month in the past, or with a payment, naming the field', async () => {
    const { api } = await server.newOwner()
    const { loan } = await mortgage(api)
    const past = expectProblem(
      await api.get(path(loan.id, 'loan-simulation', '?targetPayoffYearMonth=2020-01')),
      400,
      'LOAN_TARGET_IN_PAST',
    )
    expect(past.errors).toEqual([expect.objectContaining({ path: 'targetPayoffYearMonth' })])
    // Before the loan's first payment is no better.
    expectProblem(
      await api.get(path(loan.id, 'loan-simulation', '?targetPayoffYearMonth=2039-12')),
      400,
      'LOAN_TARGET_IN_PAST',
    )
    const both = expectProblem(
      await api.get(path(loan.id, 'loan-simulation', '?targetPayoffYearMonth=2050-01&paymentCents=200000')),
      400,
      'LOAN_SIMULATION_CONFLICT',
    )
    expect(both.errors[0].path).toBe('targetPayoffYearMonth')
    for (const query of [
      '?targetPayoffYearMonth=2050-13',
      '?extraMonthlyCents=-1',
      '?oneTimeExtraCents=abc',
      '?paymentCents=0',
      '?foo=1',
    ]) {
      expectProblem(await api.get(path(loan.id, 'loan-simulation', query)), 400, 'VALIDATION_FAILED')
    }
  })
})

describe('loan reads and who may make them', () => {
  it('answers 422 for an account that is not a loan, 404 for another household’s, 409 before terms', async () => {
    const { api } = await server.newOwner()
    const cash = await createAccount(api, { name: 'Checking', type: 'cash' })
    for (const what of ['loan-projection', 'loan-simulation', 'loan-terms-history']) {
      const problem = expectProblem(await api.get(path(cash.id, what)), 422, 'NOT_A_LOAN_ACCOUNT')
      expect(problem.detail).toContain('loan')
    }
    expectProblem(
      await api.put(path(cash.id, 'loan-terms'), {
        effectiveDate: '2026-01-01',
        principalCents: 1,
        annualRatePercent: '1',
        termMonths: 1,
      }),
      422,
      'NOT_A_LOAN_ACCOUNT',
    )
    const { loan } = await mortgage(api)
    const stranger = await server.newOwner()
    for (const what of ['loan-projection', 'loan-simulation', 'loan-terms-history']) {
      expectProblem(await stranger.api.get(path(loan.id, what)), 404, 'NOT_FOUND')
    }
    expectProblem(
      await stranger.api.put(path(loan.id, 'loan-terms'), { effectiveDate: '2026-01-01' }),
      404,
      'NOT_FOUND',
    )
    const bare = await createAccount(api, { name: 'New loan', type: 'loan' })
    expectProblem(await api.get(path(bare.id, 'loan-projection')), 409, 'LOAN_TERMS_NOT_SET')
    expectProblem(await api.get(path(bare.id, 'loan-simulation')), 409, 'LOAN_TERMS_NOT_SET')
  })

  it('needs read:accounts to read and write:accounts to set terms', async () => {
    const owner = await server.newOwner()
    const { loan } = await mortgage(owner.api)
    const writer = await server.newMember(owner, 'member', ['write:accounts'])
    for (const what of ['loan-projection', 'loan-simulation', 'loan-terms-history']) {
      const problem = expectProblem(await writer.api.get(path(loan.id, what)), 403, 'INSUFFICIENT_SCOPE')
      expect(problem.requiredScope).toBe('read:accounts')
    }
    const reader = await server.newMember(owner, 'member', ['read:accounts'])
    expectStatus(await reader.api.get(path(loan.id, 'loan-projection')), 200)
    const problem = expectProblem(
      await reader.api.put(path(loan.id, 'loan-terms'), { effectiveDate: '2041-01-01', escrowCents: 1 }),
      403,
      'INSUFFICIENT_SCOPE',
    )
    expect(problem.requiredScope).toBe('write:accounts')
    // A member with the scope may set terms; loans are no owner-only matter.
    const member = await server.newMember(owner, 'member')
    expectStatus(
      await member.api.put(path(loan.id, 'loan-terms'), { effectiveDate: '2041-01-01', escrowCents: 1 }),
      200,
    )
  })
})
