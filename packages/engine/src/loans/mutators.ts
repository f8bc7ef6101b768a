import { deriveUlid } from '../catalog/index.ts'
import { notFound } from '../errors.ts'
import { defineMutator } from '../mutator/define.ts'
import { loanTermsHistory, requireLoanAccount } from './lookups.ts'
import { type LoanTerms, toLoanTerms, toSchedule } from './model.ts'
import { DeleteLoanTermsArgsSchema, SetLoanTermsArgsSchema } from './schema.ts'
import { draftTerms } from './terms-change.ts'

/**
 * Sets a loan account's terms from an effective date on; one row per date (setting a date again
 * replaces it), its id derived from the account and the date so replicas meet on it.
 */
export const setLoanTerms = defineMutator({
  audience: 'device',
  description: "Sets a loan account's terms from an effective date on.",
  scope: 'write:accounts',
  args: SetLoanTermsArgsSchema,
  async run(tx, args, ctx): Promise<LoanTerms> {
    await requireLoanAccount(tx, ctx.householdId, args.id)
    const history = await loanTermsHistory(tx, ctx.householdId, args.id)
    const previous = history.find((t) => t.effective_date < args.effectiveDate)
    const terms = draftTerms(args, previous ? toSchedule(previous) : null)
    const values = {
      principal_cents: Number(terms.principalCents),
      annual_rate_units: Number(terms.rateUnits),
      payment_cents: Number(terms.paymentCents),
      escrow_cents: Number(terms.escrowCents),
      first_payment_date: terms.firstPaymentDate,
      term_months: terms.termMonths,
      updated_at: ctx.now,
    }
    const same = history.find((t) => t.effective_date === args.effectiveDate)
    const row = same
      ? await tx
          .updateTable('loan_terms')
          .set(values)
          .where('household_id', '=', ctx.householdId)
          .where('id', '=', same.id)
          .returningAll()
          .executeTakeFirstOrThrow()
      : await tx
          .insertInto('loan_terms')
          .values({
            household_id: ctx.householdId,
            id: deriveUlid(args.id, `loan-terms:${args.effectiveDate}`),
            account_id: args.id,
            effective_date: args.effectiveDate,
            created_at: ctx.now,
            ...values,
          })
          .returningAll()
          .executeTakeFirstOrThrow()
    return toLoanTerms(row)
  },
})

/**
 * Removes the terms of one effective date, as a mistaken entry is taken back; the terms before it
 * are in force again from that date. The rows after it keep what they were written with.
 */
export const deleteLoanTerms = defineMutator({
  audience: 'device',
  description: 'Removes the terms of one effective date from a loan account.',
  scope: 'write:accounts',
  args: DeleteLoanTermsArgsSchema,
  async run(tx, args, ctx): Promise<void> {
    await requireLoanAccount(tx, ctx.householdId, args.id)
    const deleted = await tx
      .deleteFrom('loan_terms')
      .where('household_id', '=', ctx.householdId)
      .where('account_id', '=', args.id)
      .where('effective_date', '=', args.effectiveDate)
      .executeTakeFirst()
    if (deleted.numDeletedRows === 0n) throw notFound('Loan terms', args.effectiveDate)
  },
})
