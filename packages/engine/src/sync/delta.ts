import type { Kysely, Transaction } from 'kysely'
import type { RowChange } from '../changes/changes.ts'
import type { Database } from '../database.ts'
import { sendStatement } from '../store/deferred-writes.ts'
import { readableChanges, type SyncReader } from './read-policy.ts'
import { syncDb } from './tables.ts'

/** Where a device stands: the household version it has, and its last processed mutation. */
export interface SyncPosition {
  version: number
  lmid: number
}

/** One page of a delta; `more` says another page of the same delta follows. */
export interface DeltaPage extends SyncPosition {
  fromVersion: number
  changes: RowChange[]
  more: boolean
}

/** Where a delta read ended: the position, or that the log no longer reaches back to `since`. */
export interface DeltaOutcome extends SyncPosition {
  /** The change log was trimmed past `since`: the device must reset from a snapshot. */
  behind: boolean
}

/**
 * What a read needs to know about the device it serves: rows the read policy does not give its
 * scopes, or its member under a row rule, are left out.
 */
export interface ReaderOptions extends SyncReader {
  /** The device whose lmid the answer carries; none for an anonymous read. */
  clientId?: string
  /** Largest number of row changes per page. */
  pageSize?: number
}

/**
 * Reads every change after `since` in one consistent snapshot (REPEATABLE READ), so the
 * version, the device's lmid and the rows agree: every mutation at or below lmid is in the rows,
 * none above it. Pages are whole versions, so a device never sees half a mutation. When the log
 * was trimmed past `since`, nothing is read and the outcome says the device is `behind`.
 */
export async function readDelta(
  db: Kysely<Database>,
  householdId: string,
  since: number,
  options: ReaderOptions,
  onPage: (page: DeltaPage) => void | Promise<void>,
): Promise<DeltaOutcome> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (tx) => {
      const position = await readPosition(tx, householdId, options.clientId)
      const floor = await syncDb(tx)
        .selectFrom('sync_log_floors')
        .select('version')
        .where('household_id', '=', householdId)
        .executeTakeFirst()
      if (since < (floor?.version ?? 0)) return { ...position, behind: true }
      let from = since
      do {
        const page = await readChangePage(tx, householdId, from, position.version, options.pageSize ?? 2000)
        const more = page.last < position.version
        await onPage({
          fromVersion: from,
          version: Math.max(page.last, from),
          lmid: position.lmid,
          changes: readableChanges(page.changes, options),
          more,
        })
        from = page.last
      } while (from < position.version)
      return { ...position, behind: false }
    })
}

/** The household's version and the device's lmid, read in the caller's transaction. */
export async function readPosition(
  tx: Transaction<Database>,
  householdId: string,
  clientId?: string,
): Promise<SyncPosition> {
  const clock = await tx
    .selectFrom('household_clock')
    .select('version')
    .where('household_id', '=', householdId)
    .executeTakeFirst()
  const device = clientId
    ? await syncDb(tx)
        .selectFrom('sync_clients')
        .select('lmid')
        .where('client_id', '=', clientId)
        .executeTakeFirst()
    : undefined
  return { version: clock?.version ?? 0, lmid: device?.lmid ?? 0 }
}

/**
 * Changes after `from` up to `upTo`, about `pageSize` rows but always whole versions: the page
 * ends before the version that would overflow it, unless that version alone is the page.
 */
async function readChangePage(
  tx: Transaction<Database>,
  householdId: string,
  from: number,
  upTo: number,
  pageSize: number,
): Promise<{ changes: RowChange[]; last: number }> {
  if (from >= upTo) return { changes: [], last: upTo }
  const overflow = await tx
    .selectFrom('change_log')
    .select('version')
    .where('household_id', '=', householdId)
    .where('version', '>', from)
    .where('version', '<=', upTo)
    .orderBy('version')
    .orderBy('seq')
    .offset(pageSize)
    .limit(1)
    .executeTakeFirst()
  const last = !overflow ? upTo : overflow.version - 1 > from ? overflow.version - 1 : overflow.version
  const changes = (await versionsQuery(tx, householdId, from, last).execute()).map(toRowChange)
  return { changes, last }
}

/**
 * Sends the read of the change-log rows of versions after `from` up to `to`, in commit order, in
 * `tx`, without waiting for them (`sendStatement`): the rows come with the next statement or the
 * commit, so a push that reads back its own rows pays no call of its own for them. Await
 * `changes` once the transaction has committed.
 */
export async function sendVersionsRead(
  tx: Transaction<Database>,
  householdId: string,
  from: number,
  to: number,
): Promise<{ changes: Promise<RowChange[]> }> {
  const read = await sendStatement(tx, versionsQuery(tx, householdId, from, to))
  const changes = read.answer.then(({ rows }) => rows.map(toRowChange))
  // Read only once the transaction committed; a transaction that failed reads nothing.
  changes.catch(() => {})
  return { changes }
}

/** A delta read once for every device of a household (see `readHouseholdDelta`). */
export interface HouseholdDelta {
  /** The changes cover versions after `since` up to `version`. */
  since: number
  version: number
  /** The highest trimmed version: a device below it must reset instead. */
  floor: number
  /**
   * Each asked device's lmid at `version`. A device missing here keeps the lmid it was last
   * told: only its own pushes move it, and each of those announces itself.
   */
  lmids: Map<string, number>
  /** Every table's changes; each device filters them by its cursor and scopes. */
  changes: RowChange[]
}

/**
 * One consistent read for the fan-out of a change to many devices: the household's version,
 * its log floor, every listed device's lmid and the changes after `since`, in one REPEATABLE
 * READ snapshot. Null when more than `maxRows` changed: each device then reads its own pages.
 */
export async function readHouseholdDelta(
  db: Kysely<Database>,
  householdId: string,
  since: number,
  clientIds: readonly string[],
  maxRows = 2000,
): Promise<HouseholdDelta | null> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (tx) => {
      const { version } = await readPosition(tx, householdId)
      const floor = await syncDb(tx)
        .selectFrom('sync_log_floors')
        .select('version')
        .where('household_id', '=', householdId)
        .executeTakeFirst()
      const devices =
        clientIds.length === 0
          ? []
          : await syncDb(tx)
              .selectFrom('sync_clients')
              .select(['client_id', 'lmid'])
              .where('client_id', 'in', clientIds)
              .execute()
      const rows = await versionsQuery(tx, householdId, since, version)
        .limit(maxRows + 1)
        .execute()
      if (rows.length > maxRows) return null
      return {
        since,
        version,
        floor: floor?.version ?? 0,
        lmids: new Map(devices.map((d) => [d.client_id, d.lmid])),
        changes: rows.map(toRowChange),
      }
    })
}

/** The change-log rows of versions after `from` up to `to`, in commit order. */
function versionsQuery(tx: Transaction<Database>, householdId: string, from: number, to: number) {
  return tx
    .selectFrom('change_log')
    .select(['version', 'table_name', 'row_id', 'op', 'row'])
    .where('household_id', '=', householdId)
    .where('version', '>', from)
    .where('version', '<=', to)
    .orderBy('version')
    .orderBy('seq')
}

function toRowChange(r: {
  version: number
  table_name: string
  row_id: string
  op: RowChange['op']
  row: RowChange['row']
}): RowChange {
  return { version: r.version, table: r.table_name, id: r.row_id, op: r.op, row: r.row }
}
