import { SCOPES } from '@hearth/engine'
import { type BankSyncSettings, syncConnection } from '../banks/bank-sync.ts'
import type { Job } from './job.ts'

/**
 * Syncs every active bank connection whose last sync is older than the interval, one connection
 * at a time as the system actor in its household. The job runner keeps runs of it apart across
 * every server sharing the store, so two instances never sync one connection twice at once. A
 * connection that fails is logged and tried again on a later run; one that needs attention waits
 * for its owner.
 */
export function bankSyncJob(settings: BankSyncSettings): Job {
  return {
    name: 'bankConnections.sync',
    intervalMs: Math.min(15 * 60_000, settings.intervalMs),
    async run({ store, actor, logger, signal }) {
      const due = await store.db
        .selectFrom('bank_connections')
        .select(['household_id', 'id'])
        .where('status', '=', 'active')
        .where((eb) =>
          eb.or([
            eb('last_synced_at', 'is', null),
            eb('last_synced_at', '<=', new Date(actor.now.getTime() - settings.intervalMs)),
          ]),
        )
        .orderBy('last_synced_at')
        .limit(100)
        .execute()
      let synced = 0
      let failed = 0
      for (const c of due) {
        if (signal.aborted) break
        try {
          const done = await syncConnection(
            store,
            { userId: 'system', role: 'owner', householdId: c.household_id, scopes: SCOPES, now: new Date() },
            c.id,
            settings,
            signal,
          )
          if (done) synced++
        } catch (err) {
          failed++
          logger.error({ err, householdId: c.household_id, connectionId: c.id }, 'bank sync failed')
        }
      }
      return { due: due.length, synced, failed }
    },
  }
}
