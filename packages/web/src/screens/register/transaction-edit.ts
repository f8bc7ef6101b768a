import type { Hearth } from '@hearth/client'

type UpdateArgs = Parameters<Hearth['mutate']['transactions']['update']>[0]

/** One part of a split row, as the editor shows and saves it. */
export interface EditedSplit {
  amountCents: string
  categoryId: string | null
  memo: string | null
}

/** A row's fields as the register's editor shows them: the payee by its name, '' for none. */
export interface EditedFields {
  date: string
  amountCents: string
  payeeName: string
  categoryId: string | null
  memo: string | null
  /** Left out to leave the status as it is (a reconciled row's editor never sets it). */
  status?: 'pending' | 'cleared' | 'reconciled'
  tagIds: readonly string[]
  splits: readonly EditedSplit[]
}

/**
 * The update that takes the row from `before` to `after`: only what the person changed. An amount
 * edited alone does not name the payee again (which would resolve it by name) nor replace the
 * row's splits and tags (which rewrites their rows, and drops a part's own payee that the editor
 * does not show). Null when nothing changed, so Save makes no mutation. With `before` null (the
 * row as it opened could not be read), every field is sent.
 */
export function transactionEdit(
  id: string,
  before: EditedFields | null,
  after: EditedFields,
): UpdateArgs | null {
  const changed = <K extends keyof EditedFields>(key: K, same = Object.is) =>
    before === null || !same(after[key], before[key])
  const args: UpdateArgs = { id }
  if (changed('date')) args.date = after.date
  if (changed('amountCents')) args.amountCents = after.amountCents
  if (changed('payeeName')) {
    if (after.payeeName) args.payeeName = after.payeeName
    else args.payeeId = null
  }
  if (changed('categoryId')) args.categoryId = after.categoryId
  if (changed('memo')) args.memo = after.memo
  if (after.status && changed('status')) args.status = after.status
  if (changed('tagIds', sameSet)) args.tagIds = [...after.tagIds]
  if (changed('splits', sameSplits)) args.splits = after.splits.map((s) => ({ ...s }))
  return Object.keys(args).length > 1 ? args : null
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id) => b.includes(id))
}

function sameSplits(a: readonly EditedSplit[], b: readonly EditedSplit[]): boolean {
  return (
    a.length === b.length &&
    a.every(
      (s, i) =>
        s.amountCents === b[i]!.amountCents && s.categoryId === b[i]!.categoryId && s.memo === b[i]!.memo,
    )
  )
}
