import { isOnBudget } from '../model.ts'
import type { AccountRow, AccountStatus, AccountType } from '../tables.ts'

/** An account as the API shows it, with its maintained balances as decimal integer strings. */
export interface Account {
  id: string
  name: string
  type: AccountType
  subtype: string | null
  currency: string
  status: AccountStatus
  group: string
  position: number
  bankFed: boolean
  paymentDueDay: number | null
  /** The bank's identity of the account as its files state it (OFX/QFX `BANKID/ACCTID`, camt.053 IBAN), or null. */
  bankAccount: string | null
  onBudget: boolean
  balanceCents: string
  clearedBalanceCents: string
  unclearedBalanceCents: string
  closedAt: string | null
  createdAt: string
  updatedAt: string
}

export function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    subtype: row.subtype,
    currency: row.currency,
    status: row.status,
    group: row.group_name,
    position: row.position,
    bankFed: row.bank_fed,
    paymentDueDay: row.payment_due_day ?? null,
    bankAccount: row.bank_account ?? null,
    onBudget: isOnBudget(row.type),
    balanceCents: String(row.balance_cents),
    clearedBalanceCents: String(row.cleared_balance_cents),
    unclearedBalanceCents: String(row.balance_cents - row.cleared_balance_cents),
    closedAt: row.closed_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}
