import { TransactionListSchema, TransactionSchema, UnmatchResultSchema } from '@hearth/contracts'
import { operations } from '@hearth/engine'
import { operationRoute } from '../http/operation-route.ts'

const tag = 'Transactions'
const transaction = '/households/{householdId}/transactions/{transactionId}'

/** Matching a bank import with its hand-entered twin: candidates, match, unmatch, dismiss. */
export const transactionMatchingRoutes = [
  operationRoute(operations.transactions.matchCandidates, {
    method: 'get',
    path: `${transaction}/match-candidates`,
    status: 200,
    tag,
    summary: 'Twins a row could be matched with',
    response: TransactionListSchema,
    responseDescription: 'The candidates.',
    notes:
      'Same account (so same currency) and amount, dated within 7 days, unmatched, of the other kind: a bank ' +
      'import lists hand-entered twins, a hand-entered row lists bank imports. Nearest date first, at most 50.',
  }),
  operationRoute(operations.transactions.match, {
    method: 'post',
    path: `${transaction}/match`,
    status: 200,
    tag,
    summary: 'Match a bank import with its hand-entered twin',
    response: TransactionSchema,
    responseDescription: 'The surviving row; `matchedTransactionId` names the bank row.',
    notes:
      'Either row may be named in the path, the other as `candidateId`. The hand-entered row survives with its ' +
      'payee, category, memo, tags and splits, takes the bank date and becomes cleared; the bank row is folded in ' +
      '(hidden, outside balances). Undone by unmatch. Two rows of one kind, another account, another amount or ' +
      'more than 7 days apart answer 400 `NOT_A_MATCH_CANDIDATE`; a row already matched 409 ' +
      '`TRANSACTION_ALREADY_MATCHED`; a reconciled row 409 `TRANSACTION_RECONCILED`.',
    errors: {
      400: ['NOT_A_MATCH_CANDIDATE'],
      409: ['TRANSACTION_ALREADY_MATCHED', 'TRANSACTION_RECONCILED'],
    },
  }),
  operationRoute(operations.transactions.unmatch, {
    method: 'post',
    path: `${transaction}/unmatch`,
    status: 200,
    tag,
    summary: 'Separate a matched pair',
    optionalBody: true,
    response: UnmatchResultSchema,
    responseDescription: 'Both rows as they are again.',
    notes:
      'Either row of the pair may be named. The bank row returns as its own row; the hand-entered row regains its ' +
      'date and status from before the match. A reconciled row answers 409 `TRANSACTION_RECONCILED`; a row that ' +
      'is not matched 409 `NOT_MATCHED`.',
    errors: { 409: ['TRANSACTION_RECONCILED', 'NOT_MATCHED'] },
  }),
  operationRoute(operations.transactions.dismissMatch, {
    method: 'post',
    path: `${transaction}/dismiss-match`,
    status: 200,
    tag,
    summary: 'Clear the possible-duplicate marker',
    optionalBody: true,
    response: TransactionSchema,
    responseDescription: 'The row without the marker.',
    notes: 'Clears the marker an ambiguous import left on a bank row. Idempotent.',
  }),
]
