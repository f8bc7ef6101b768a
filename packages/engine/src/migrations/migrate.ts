import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely'
import type { Database } from '../database.ts'
import * as foundation from './0001-foundation.ts'
import * as catalog from './0002-catalog.ts'
import * as ledger from './0003-ledger.ts'
import * as sync from './0004-sync.ts'
import * as syncLogWindow from './0005-sync-log-window.ts'
import * as syncApplySkipsEmpty from './0006-sync-apply-skips-empty.ts'
import * as budgets from './0007-budgets.ts'
import * as rules from './0008-rules.ts'
import * as payeeAliases from './0009-payee-aliases.ts'
import * as categoryGoals from './0010-category-goals.ts'
import * as budgetActivity from './0011-budget-activity.ts'
import * as budgetClosings from './0012-budget-closings.ts'
import * as learnedRules from './0013-learned-rules.ts'
import * as statementChangeLog from './0014-statement-change-log.ts'
import * as ruleRuns from './0015-rule-runs.ts'
import * as deviceClockQuiet from './0016-device-clock-quiet.ts'
import * as outboxClaimOrder from './0017-outbox-claim-order.ts'
import * as exchangeRateText from './0018-exchange-rate-text.ts'
import * as serverRowsGate from './0019-server-rows-gate.ts'
import * as sessionRights from './0020-session-rights.ts'
import * as households from './0022-households.ts'
import * as recurrences from './0023-recurrences.ts'
import * as loans from './0024-loans.ts'
import * as webhooksNotifications from './0025-webhooks-notifications.ts'
import * as bankImport from './0026-bank-import.ts'
import * as assistant from './0027-assistant.ts'
import * as reportIndex from './0028-report-index.ts'
import * as forecastDays from './0030-forecast-days.ts'
import * as webhookClaimIndex from './0031-webhook-claim-index.ts'
import * as importBankAccount from './0032-import-bank-account.ts'
import * as notes from './0034-notes.ts'
import * as webhookDeliveryUpdates from './0036-webhook-delivery-updates.ts'
import * as signIn from './0037-sign-in.ts'
import * as activity from './0038-activity.ts'
import * as bankConnections from './0042-bank-connections.ts'
import * as secondFactors from './0043-second-factors.ts'
import * as deviceCredentials from './0044-device-credentials.ts'
import * as passkeyRedeemChallenges from './0045-passkey-redeem-challenges.ts'
import * as deviceUndoHistory from './0046-device-undo-history.ts'
import * as forecastDaysRebuild from './0047-forecast-days-rebuild.ts'
import * as suggestionGenerations from './0048-suggestion-generations.ts'
import * as emailVerification from './0049-email-verification.ts'
import * as suggestionPayeeDeleted from './0050-suggestion-payee-deleted.ts'
import * as reportClosings from './0051-report-closings.ts'
import * as rightsClock from './0052-rights-clock.ts'

/** Every migration, in order; the names are what the tracking table records. */
export const MIGRATIONS: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-catalog': catalog,
  '0003-ledger': ledger,
  '0004-sync': sync,
  '0005-sync-log-window': syncLogWindow,
  '0006-sync-apply-skips-empty': syncApplySkipsEmpty,
  '0007-budgets': budgets,
  '0008-rules': rules,
  '0009-payee-aliases': payeeAliases,
  '0010-category-goals': categoryGoals,
  '0011-budget-activity': budgetActivity,
  '0012-budget-closings': budgetClosings,
  '0013-learned-rules': learnedRules,
  '0014-statement-change-log': statementChangeLog,
  '0015-rule-runs': ruleRuns,
  '0016-device-clock-quiet': deviceClockQuiet,
  '0017-outbox-claim-order': outboxClaimOrder,
  '0018-exchange-rate-text': exchangeRateText,
  '0019-server-rows-gate': serverRowsGate,
  '0020-session-rights': sessionRights,
  '0022-households': households,
  '0023-recurrences': recurrences,
  '0024-loans': loans,
  '0025-webhooks-notifications': webhooksNotifications,
  '0026-bank-import': bankImport,
  '0027-assistant': assistant,
  '0028-report-index': reportIndex,
  '0030-forecast-days': forecastDays,
  '0031-webhook-claim-index': webhookClaimIndex,
  '0032-import-bank-account': importBankAccount,
  '0034-notes': notes,
  '0036-webhook-delivery-updates': webhookDeliveryUpdates,
  '0038-activity': activity,
  '0037-sign-in': signIn,
  '0042-bank-connections': bankConnections,
  '0043-second-factors': secondFactors,
  '0044-device-credentials': deviceCredentials,
  '0045-passkey-redeem-challenges': passkeyRedeemChallenges,
  '0046-device-undo-history': deviceUndoHistory,
  '0047-forecast-days-rebuild': forecastDaysRebuild,
  '0048-suggestion-generations': suggestionGenerations,
  '0049-email-verification': emailVerification,
  '0050-suggestion-payee-deleted': suggestionPayeeDeleted,
  '0051-report-closings': reportClosings,
  '0052-rights-clock': rightsClock,
}

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS }

/**
 * Brings a database to the latest schema. Kysely's migrator tracks applied migrations in a
 * table and takes a lock, so two processes starting at once, or a second run, are safe.
 */
export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  const migrator = new Migrator({ db, provider })
  const { error, results } = await migrator.migrateToLatest()
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName
    throw new Error(`Migration ${failed ?? ''} failed: ${(error as Error).message ?? error}`, {
      cause: error,
    })
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}
