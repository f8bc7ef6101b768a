import { conflict, EngineError } from '../../errors.ts'

/** Where in a request a row sits: its field prefix and, inside a bulk request, its index. */
export interface RowAt {
  prefix: string
  index?: number
}

export const SINGLE: RowAt = { prefix: '' }

function located(at: RowAt): Record<string, unknown> {
  return at.index === undefined ? {} : { index: at.index }
}

/** 400 SPLIT_SUM_MISMATCH: the parts of a split must add up to the row's amount. */
export function splitSumMismatch(at: RowAt, sum: number, amount: number): EngineError {
  return new EngineError(
    400,
    'SPLIT_SUM_MISMATCH',
    `${at.index === undefined ? '' : `Row ${at.index}: `}the splits sum to ${sum} cents but the transaction amount is ${amount} cents.`,
    {
      errors: [
        {
          path: `${at.prefix}splits`,
          message: 'Splits must sum to amountCents.',
          code: 'split_sum_mismatch',
        },
      ],
      extra: { splitSumCents: String(sum), amountCents: String(amount), ...located(at) },
    },
  )
}

/** 400 SPLIT_CATEGORY_CONFLICT: a split row carries its categories on its parts. */
export function splitCategoryConflict(at: RowAt): EngineError {
  return new EngineError(
    400,
    'SPLIT_CATEGORY_CONFLICT',
    `${at.index === undefined ? '' : `Row ${at.index}: `}a split transaction has no category of its own; set categories on its splits.`,
    {
      errors: [
        {
          path: `${at.prefix}categoryId`,
          message: 'Not allowed on a split transaction.',
          code: 'split_category',
        },
      ],
      extra: located(at),
    },
  )
}

/** 409 TRANSACTION_RECONCILED: the row is locked until its status is set back to cleared. */
export function transactionReconciled(id: string, action: string, at: RowAt = SINGLE): EngineError {
  return conflict(
    'TRANSACTION_RECONCILED',
    `Transaction ${id} is reconciled, so it cannot be ${action}. Set its status back to cleared first to unlock it.`,
    { transactionId: id, ...located(at) },
  )
}

/** Checks a row's splits against its amount and category. */
export function checkSplits(
  at: RowAt,
  amount: number,
  categoryId: string | null | undefined,
  splits: readonly { amountCents: number }[],
): void {
  if (splits.length === 0) return
  if (categoryId) throw splitCategoryConflict(at)
  const sum = splits.reduce((s, p) => s + p.amountCents, 0)
  if (sum !== amount) throw splitSumMismatch(at, sum, amount)
}
