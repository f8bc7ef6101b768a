import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'
import type { Kysely, Transaction } from 'kysely'
import { normalizePayeeName } from '../catalog/model.ts'
import type { Database } from '../database.ts'
import { EngineError } from '../errors.ts'
import { requireAccount } from '../ledger/accounts/lookups.ts'
import { addDays, daysBetween } from '../ledger/model.ts'
import type { AccountRow } from '../ledger/tables.ts'
import { CANDIDATE_WINDOW_DAYS } from '../ledger/transactions/candidates.ts'
import { idList } from '../shared/id-list.ts'
import {
  type BankFile,
  readStatement,
  type Statement,
  StatementError,
  type StatementRow,
} from './parse/index.ts'

type Db = Kysely<Database> | Transaction<Database>

/** What an import would do with one row of the file. */
export type RowOutcome = 'new' | 'duplicate' | 'matched' | 'ambiguous' | 'refused'

/** One row of the plan, in file order. */
export interface PlannedRow {
  line: number
  outcome: RowOutcome
  date: string | null
  amountCents: string | null
  payee: string | null
  memo: string | null
  /** The id the row is imported under: the bank's (FITID, entry reference) or a fingerprint `fp:…`. */
  importedId: string | null
  /** The hand-entered twin a `matched` row folds into. */
  matchedTransactionId?: string
  /** The twins an `ambiguous` row could be (it is imported and marked a possible duplicate). */
  candidateIds?: string[]
  /** The row a `duplicate` repeats (an earlier import's, or `null` for an earlier row of this file). */
  duplicateOf?: string | null
  reason?: string
}

/**
 * How the file's bank account compares with the account chosen: `none` (the file states none,
 * as CSV), `matches` (the account's recorded one), `new` (the account has none recorded and no
 * other account holds it: a commit records it), `unknown` (the account has another one recorded
 * and no account holds the file's) or `otherAccount` (another account of the household holds
 * it). A commit of an `unknown` or `otherAccount` file is refused unless the caller accepts it.
 */
export type BankAccountStatus = 'none' | 'matches' | 'new' | 'unknown' | 'otherAccount'

/** The file's bank account beside the account's, with what a commit would do about it. */
export interface BankAccountCheck {
  status: BankAccountStatus
  /** As the file states it: OFX/QFX `BANKID/ACCTID` (a card's ACCTID), camt.053 IBAN; null for CSV. */
  file: string | null
  /** As the chosen account has it recorded, or null. */
  account: string | null
  /** The account that holds the file's bank account, when it is another one. */
  otherAccountId: string | null
  message: string
}

/**
 * Whether two bank-account identities name the same account: equal, or, when either lacks the
 * bank part (`BANKID/`), equal account parts (a card, or a number typed without its bank).
 */
export function sameBankAccount(a: string, b: string): boolean {
  if (a === b) return true
  if (a.includes('/') && b.includes('/')) return false
  return a.slice(a.lastIndexOf('/') + 1) === b.slice(b.lastIndexOf('/') + 1)
}

/** Compares the file's bank account with the chosen account and the household's other accounts. */
async function checkBankAccount(
  db: Db,
  householdId: string,
  account: AccountRow,
  file: string | null,
): Promise<BankAccountCheck> {
  const recorded = account.bank_account ?? null
  const base = { file, account: recorded, otherAccountId: null }
  if (file === null)
    return { ...base, status: 'none', message: 'The file states no bank account; nothing to check.' }
  if (recorded !== null && sameBankAccount(recorded, file))
    return {
      ...base,
      status: 'matches',
      message: `The file is of bank account ${file}, as the account records.`,
    }
  const others = await db
    .selectFrom('accounts')
    .select(['id', 'name', 'bank_account'])
    .where('household_id', '=', householdId)
    .where('id', '!=', account.id)
    .where('bank_account', 'is not', null)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .execute()
  const other = others.find((o) => sameBankAccount(o.bank_account!, file))
  if (other)
    return {
      ...base,
      status: 'otherAccount',
      otherAccountId: other.id,
      message: `The file is of bank account ${file}, which account ${other.id} (${other.name}) records, not account ${account.id}. Import it there, or commit with acceptBankAccount.`,
    }
  if (recorded === null)
    return {
      ...base,
      status: 'new',
      message: `The file is of bank account ${file}; the commit records it on account ${account.id}.`,
    }
  return {
    ...base,
    status: 'unknown',
    message: `The file is of bank account ${file}, which no account records; account ${account.id} records ${recorded}. Choose the right account, or commit with acceptBankAccount (a reissued card, say), which records ${file} on it.`,
  }
}

/** The whole plan: rows, counts, the file's balance, and a digest a commit can hold it to. */
export interface ImportPlan {
  accountId: string
  format: Statement['format']
  currency: string
  rows: PlannedRow[]
  counts: Record<RowOutcome, number>
  /** The balance the file states (OFX LEDGERBAL, camt.053 CLBD), in cents, or null. */
  fileLedgerBalanceCents: string | null
  fileLedgerBalanceDate: string | null
  /** The file's bank account beside the account's: a file of another account is reported here. */
  bankAccount: BankAccountCheck
  /** Changes when any row's outcome would: a commit given it refuses a plan that moved on. */
  digest: string
}

/** A refusal of the whole file, as the API's 400. */
export function fileRefusal(e: StatementError): EngineError {
  return new EngineError(400, e.code, e.message, {
    errors: [{ path: e.path, message: e.message, code: e.code.toLowerCase() }],
  })
}

/**
 * The last file this process read and what it read: a commit comes with the very file its
 * preview just planned, and a statement depends on nothing but the file (its bytes or text, its
 * format, encoding and CSV mapping), so the commit takes it as read rather than parsing it again.
 * One file, never handed out (plans copy what they show), whichever household sent it.
 */
let lastRead: { file: BankFile; options: string; statement: Statement } | null = null

function readOptions(file: BankFile): string {
  return JSON.stringify([file.format, file.encoding ?? null, file.mapping ?? null])
}

/** Reads a file, turning a file-level problem into its 4xx. */
export function statementOf(file: BankFile): Statement {
  const options = readOptions(file)
  if (
    lastRead !== null &&
    lastRead.options === options &&
    lastRead.file.content === file.content &&
    lastRead.file.contentBase64 === file.contentBase64
  )
    return lastRead.statement
  try {
    const statement = readStatement(file)
    lastRead = {
      file: { format: file.format, content: file.content, contentBase64: file.contentBase64 },
      options,
      statement,
    }
    return statement
  } catch (e) {
    if (e instanceof StatementError) throw fileRefusal(e)
    throw e
  }
}

/**
 * The stable id of a row without a bank id: its day, amount, folded payee and memo, and which
 * occurrence of those it is in the file (two identical coffees on one day stay two rows).
 */
export function fingerprint(row: StatementRow, occurrence: number): string {
  const key = [
    row.date,
    row.amountCents,
    normalizePayeeName(row.payee ?? ''),
    (row.memo ?? '').trim(),
    occurrence,
  ].join('\u0000')
  return `fp:${bytesToHex(sha256(utf8ToBytes(key))).slice(0, 32)}`
}

/**
 * Plans an import into one account without changing anything: each row is refused (unreadable,
 * or outside what the account takes), a duplicate (its imported id is on the account already, or
 * earlier in the file), matched (exactly one hand-entered twin: same amount, within 7 days, as
 * the match engine folds it), ambiguous (several twins) or new. A file in another currency than
 * the account is refused whole.
 */
export async function planImport(
  db: Db,
  householdId: string,
  accountId: string,
  file: BankFile,
): Promise<{ plan: ImportPlan; account: AccountRow; statement: Statement }> {
  await requireAccount(db, householdId, accountId)
  return planStatement(db, householdId, accountId, statementOf(file))
}

/**
 * Plans a statement already read (a bank file's, or a bank connection's window of rows) against
 * one account, as `planImport` does for a file: one way to tell new, duplicate and matched rows.
 */
export async function planStatement(
  db: Db,
  householdId: string,
  accountId: string,
  statement: Statement,
): Promise<{ plan: ImportPlan; account: AccountRow; statement: Statement }> {
  const account = await requireAccount(db, householdId, accountId)
  if (statement.currency && statement.currency.toUpperCase() !== account.currency) {
    throw new EngineError(
      400,
      'IMPORT_CURRENCY_MISMATCH',
      `The file is in ${statement.currency}; account ${account.id} is in ${account.currency}. Import it into an account in ${statement.currency}.`,
      {
        errors: [
          { path: 'content', message: `The file is in ${statement.currency}.`, code: 'currency_mismatch' },
        ],
        extra: { fileCurrency: statement.currency, accountCurrency: account.currency },
      },
    )
  }
  const bankAccount = await checkBankAccount(db, householdId, account, statement.bankAccountId)
  const occurrences = new Map<string, number>()
  const ids = statement.rows.map((row) => {
    if (row.externalId) return row.externalId.slice(0, 200)
    const key = `${row.date}|${row.amountCents}|${normalizePayeeName(row.payee ?? '')}|${(row.memo ?? '').trim()}`
    const n = occurrences.get(key) ?? 0
    occurrences.set(key, n + 1)
    return fingerprint(row, n)
  })
  const known = new Map<string, string>()
  for (let i = 0; i < ids.length; i += 5000) {
    const slice = ids.slice(i, i + 5000)
    if (slice.length === 0) continue
    for (const r of await db
      .selectFrom('transactions')
      .select(['id', 'imported_id'])
      .where('household_id', '=', householdId)
      .where('account_id', '=', accountId)
      .where('imported_id', '=', idList(slice))
      .execute())
      known.set(r.imported_id!, r.id)
  }
  const fresh = statement.rows
    .map((row, i) => ({ row, importedId: ids[i]! }))
    .filter(({ importedId }) => !known.has(importedId))
  const twins = await twinPool(
    db,
    householdId,
    accountId,
    fresh.map((f) => f.row),
  )
  const claimed = new Set<string>()
  const seen = new Set<string>()
  const planned: PlannedRow[] = statement.rows.map((row, i) => {
    const importedId = ids[i]!
    const base = {
      line: row.line,
      date: row.date,
      amountCents: String(row.amountCents),
      payee: row.payee,
      memo: row.memo,
      importedId,
    }
    if (known.has(importedId))
      return { ...base, outcome: 'duplicate' as const, duplicateOf: known.get(importedId)! }
    if (seen.has(importedId))
      return {
        ...base,
        outcome: 'duplicate' as const,
        duplicateOf: null,
        reason: 'The file repeats this id.',
      }
    seen.add(importedId)
    const found = (twins.get(row.amountCents) ?? []).filter(
      (t) => !claimed.has(t.id) && Math.abs(daysBetween(t.date, row.date)) <= CANDIDATE_WINDOW_DAYS,
    )
    if (found.length === 1) {
      claimed.add(found[0]!.id)
      return { ...base, outcome: 'matched' as const, matchedTransactionId: found[0]!.id }
    }
    if (found.length > 1)
      return { ...base, outcome: 'ambiguous' as const, candidateIds: found.map((t) => t.id) }
    return { ...base, outcome: 'new' as const }
  })
  for (const r of statement.refused)
    planned.push({
      line: r.line,
      outcome: 'refused',
      date: null,
      amountCents: null,
      payee: null,
      memo: null,
      importedId: null,
      reason: r.reason,
    })
  planned.sort((a, b) => a.line - b.line)
  const counts: Record<RowOutcome, number> = { new: 0, duplicate: 0, matched: 0, ambiguous: 0, refused: 0 }
  for (const r of planned) counts[r.outcome]++
  const digest = bytesToHex(
    sha256(
      utf8ToBytes(
        JSON.stringify(
          planned.map((r) => [
            r.line,
            r.outcome,
            r.importedId,
            r.amountCents,
            r.date,
            r.matchedTransactionId ?? null,
          ]),
        ),
      ),
    ),
  ).slice(0, 32)
  return {
    account,
    statement,
    plan: {
      accountId,
      format: statement.format,
      currency: account.currency,
      rows: planned,
      counts,
      fileLedgerBalanceCents: statement.ledgerBalance ? String(statement.ledgerBalance.amountCents) : null,
      fileLedgerBalanceDate: statement.ledgerBalance?.date ?? null,
      bankAccount,
      digest,
    },
  }
}

/** Hand-entered rows that could be the twins of new bank rows, by amount: the match engine's pool. */
async function twinPool(db: Db, householdId: string, accountId: string, rows: readonly StatementRow[]) {
  const byAmount = new Map<number, { id: string; date: string }[]>()
  if (rows.length === 0) return byAmount
  const dates = rows.map((r) => r.date).sort()
  const amounts = [...new Set(rows.map((r) => r.amountCents))]
  for (let i = 0; i < amounts.length; i += 5000) {
    const pool = await db
      .selectFrom('transactions')
      .select(['id', 'date', 'amount_cents'])
      .where('household_id', '=', householdId)
      .where('account_id', '=', accountId)
      .where('amount_cents', 'in', amounts.slice(i, i + 5000))
      .where('date', '>=', addDays(dates[0]!, -CANDIDATE_WINDOW_DAYS))
      .where('date', '<=', addDays(dates.at(-1)!, CANDIDATE_WINDOW_DAYS))
      .where('deleted_at', 'is', null)
      .where('merged_into_id', 'is', null)
      .where('matched_transaction_id', 'is', null)
      .where('kind', '=', 'normal')
      .where('source', '!=', 'imported')
      .where('status', '!=', 'reconciled')
      .orderBy('date')
      .orderBy('id')
      .execute()
    for (const t of pool) {
      const key = Number(t.amount_cents)
      byAmount.set(key, [...(byAmount.get(key) ?? []), { id: t.id, date: t.date }])
    }
  }
  return byAmount
}
