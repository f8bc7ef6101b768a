import { parseCents } from '../../format.ts'

/** The what-if form as typed: amounts as a person writes them, the target as YYYY-MM. */
export interface WhatIfForm {
  extraMonthly: string
  lumpSum: string
  payment: string
  targetMonth: string
}

/** `loans.simulation`'s arguments besides the loan's id, cents as decimal strings. */
export interface WhatIfArgs {
  extraMonthlyCents?: string
  oneTimeExtraCents?: string
  paymentCents?: string
  targetPayoffYearMonth?: string
}

export const EMPTY_WHAT_IF: WhatIfForm = { extraMonthly: '', lumpSum: '', payment: '', targetMonth: '' }

/**
 * The simulation's arguments from the form, or the first field a person must fix: amounts are
 * positive whole cents, and a different payment and a target month are two answers to one
 * question (the engine solves the payment for the target), so only one of them.
 */
export function whatIfArgs(
  form: WhatIfForm,
): { args: WhatIfArgs } | { field: keyof WhatIfForm; message: string } {
  const args: WhatIfArgs = {}
  const amounts = [
    ['extraMonthly', 'extraMonthlyCents', 'Extra each month'],
    ['lumpSum', 'oneTimeExtraCents', 'The lump sum'],
    ['payment', 'paymentCents', 'The monthly payment'],
  ] as const
  for (const [field, arg, words] of amounts) {
    if (form[field].trim() === '') continue
    const cents = parseCents(form[field])
    if (cents === null || cents <= 0n)
      return { field, message: `${words} is an amount above zero, such as 200.00.` }
    args[arg] = cents.toString()
  }
  if (form.targetMonth) {
    if (!/^\d{4}-\d{2}$/.test(form.targetMonth))
      return { field: 'targetMonth', message: 'The target is a month.' }
    if (args.paymentCents)
      return {
        field: 'targetMonth',
        message:
          'Give a different payment or a target month, not both: Hearth works out the payment for a target.',
      }
    args.targetPayoffYearMonth = form.targetMonth
  }
  return { args }
}

/** Interest paid on the loan before this month's payment: the table's total less what is still to come. */
export function interestToDate(plan: { totalInterestCents: string; remainingInterestCents: string }): string {
  return (BigInt(plan.totalInterestCents) - BigInt(plan.remainingInterestCents)).toString()
}

/** "2 years 3 months": a count of monthly payments as a person reads it. */
export function monthsWords(months: number): string {
  const abs = Math.abs(months)
  const years = Math.floor(abs / 12)
  const rest = abs % 12
  const parts = [
    years ? `${years} year${years === 1 ? '' : 's'}` : '',
    rest || !years ? `${rest} month${rest === 1 ? '' : 's'}` : '',
  ].filter(Boolean)
  return parts.join(' ')
}
