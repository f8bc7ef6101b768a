import type { ActivityTables } from './activity/tables.ts'
import type { AssistantTables } from './assistant/tables.ts'
import type { BankTables } from './banks/tables.ts'
import type { BudgetTables } from './budgets/tables.ts'
import type { CatalogTables } from './catalog/tables.ts'
import type { ChangeLogTable } from './changes/tables.ts'
import type { ForecastTables } from './forecasts/tables.ts'
import type { IdempotencyKeysTable } from './idempotency/tables.ts'
import type {
  ApiKeysTable,
  HouseholdClockTable,
  HouseholdsTable,
  InvitationsTable,
  MembershipsTable,
  RightsClockTable,
  UsersTable,
} from './identity/tables.ts'
import type { ImportTables } from './imports/tables.ts'
import type { LedgerTables } from './ledger/tables.ts'
import type { LoanTables } from './loans/tables.ts'
import type { NoteTables } from './notes/tables.ts'
import type { NotificationTables } from './notifications/tables.ts'
import type { OutboxTable } from './outbox/tables.ts'
import type { PayeeTables } from './payees/tables.ts'
import type { RecurrenceTables } from './recurrences/tables.ts'
import type { ReportTables } from './reports/tables.ts'
import type { RuleTables } from './rules/tables.ts'
import type { SignInTables } from './sign-in/tables.ts'
import type { WebhookTables } from './webhooks/tables.ts'

/** Identity, sync bookkeeping and server plumbing. */
export interface FoundationTables {
  users: UsersTable
  households: HouseholdsTable
  memberships: MembershipsTable
  api_keys: ApiKeysTable
  invitations: InvitationsTable
  household_clock: HouseholdClockTable
  rights_clock: RightsClockTable
  change_log: ChangeLogTable
  outbox: OutboxTable
  idempotency_keys: IdempotencyKeysTable
}

/** Every table the engine knows, for Kysely's typing; each domain owns its own slice. */
export type Database = FoundationTables &
  CatalogTables &
  LedgerTables &
  BudgetTables &
  ForecastTables &
  ReportTables &
  RuleTables &
  PayeeTables &
  LoanTables &
  RecurrenceTables &
  AssistantTables &
  ImportTables &
  WebhookTables &
  BankTables &
  NotificationTables &
  NoteTables &
  ActivityTables &
  SignInTables
