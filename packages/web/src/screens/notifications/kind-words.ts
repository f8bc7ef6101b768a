/** Each notification kind in a household's words, in the preferences' order. */
export const KIND_WORDS: Record<string, string> = {
  budget_overrun: 'A category overspent',
  large_transaction: 'A large transaction',
  webhook_disabled: 'A webhook switched off',
  bank_connection_attention: 'A bank connection needs attention',
  bill_due_soon: 'A bill due soon',
  recurrence_price_change: 'A recurring payment’s price changed',
  low_balance_ahead: 'A low balance ahead',
  change_refused: 'A change of yours was refused',
  sign_in_failures: 'Wrong passwords tried for your account',
}

/** Each channel in a household's words. */
export const CHANNEL_WORDS: Record<string, string> = {
  in_app: 'In the app',
  email: 'Email',
  push: 'Push',
}

/** Where a notification's subject is shown in the app, if it has a screen. */
export function subjectPath(subject: Record<string, unknown>): string | null {
  switch (subject.type) {
    case 'transaction':
    case 'account':
      return typeof subject.accountId === 'string' ? `/accounts/${subject.accountId}` : null
    case 'budgetCategory':
      return typeof subject.month === 'string' ? `/budget/${subject.month}` : '/budget'
    case 'recurrence':
      return '/bills'
    case 'signIn':
      // Where a person sees where they are signed in, and adds a second factor.
      return '/devices'
    default:
      return null
  }
}
