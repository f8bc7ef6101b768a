import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createHearth, type Hearth, type HearthOptions } from '@hearth/client'
import { dumpHousehold, READ_POLICY } from '@hearth/engine/sync'
import type { RunningServer } from '@hearth/server'
import { sql } from 'kysely'
import { expect, vi } from 'vitest'
import { type TestMember, templateDir } from '../src/index.ts'

const opened: { device: Hearth; folder: string }[] = []

/** A fresh device folder: the run's migrated template (a copy) plus an empty queue. */
export async function newDeviceFolder(): Promise<string> {
  const folder = mkdtempSync(join(tmpdir(), 'hearth-device-'))
  cpSync(templateDir(), join(folder, 'pgdata'), { recursive: true })
  return folder
}

/** A device replica of `member`'s household in its own folder, syncing with `server`. */
export async function newDevice(
  server: RunningServer,
  member: TestMember,
  options: Partial<HearthOptions> = {},
): Promise<Hearth> {
  const folder = options.store ?? (await newDeviceFolder())
  const device = await createHearth({
    serverUrl: server.url,
    token: member.api.token,
    household: member.householdId,
    deviceName: 'test device',
    reconnectMinMs: 20,
    reconnectMaxMs: 200,
    store: folder,
    ...options,
  })
  opened.push({ device, folder })
  return device
}

/** Closes a device early (say, to reopen its folder), so the cleanup skips it. */
export async function closeDevice(device: Hearth): Promise<void> {
  const i = opened.findIndex((o) => o.device === device)
  if (i >= 0) opened.splice(i, 1)
  await device.close()
}

/** Closes every device a test opened and removes their folders. */
export async function closeDevices(): Promise<void> {
  const all = opened.splice(0)
  await Promise.all(all.map((o) => o.device.close()))
  for (const o of all) rmSync(o.folder, { recursive: true, force: true })
}

/** Waits until `check` stops throwing. */
export function eventually<T>(check: () => Promise<T> | T, timeout = 20_000): Promise<T> {
  return vi.waitFor(check, { timeout, interval: 25 })
}

/**
 * Waits until every device is caught up and holds exactly the server's rows. A device's clock is
 * the version it was last told of: it stays behind the server's while only rows no device reads
 * (server-only tables such as forecast days, written by jobs) have landed since (docs/sync.md).
 */
export async function expectConverged(
  server: RunningServer,
  householdId: string,
  devices: Hearth[],
  timeout = 20_000,
) {
  try {
    await convergence(server, householdId, devices, timeout)
  } catch (error) {
    // What each replica's own comparison with the server finds, for the failure's message.
    const checks = await Promise.all(devices.map((d) => d.sync.check().catch((e: Error) => e.message)))
    if (error instanceof Error) error.message += `\nreplica checks: ${JSON.stringify(checks)}`
    throw error
  }
}

async function convergence(server: RunningServer, householdId: string, devices: Hearth[], timeout: number) {
  await eventually(async () => {
    const truth = await dumpHousehold(server.store.db, householdId)
    for (const [i, d] of devices.entries()) {
      const which = `device ${i} (${d.sync.status.state} at ${d.sync.status.version})`
      expect(d.sync.status, which).toMatchObject({ state: 'online', pending: 0 })
      expect(await dumpHousehold(d.store.db, householdId), which).toEqual(truth)
      expect(await unseenChanges(d.store.db, server.store.db, householdId), which).toEqual([])
    }
  }, timeout)
}

/** The server's changes past a device's clock to tables a device reads; empty when it is caught up. */
async function unseenChanges(
  device: Hearth['store']['db'],
  server: Hearth['store']['db'],
  householdId: string,
) {
  const version = await clock(device, householdId)
  expect(version).toBeDefined()
  const later = await server
    .selectFrom('change_log')
    .select(['version', 'table_name'])
    .where('household_id', '=', householdId)
    .where('version', '>', version!)
    .orderBy('seq')
    .execute()
  return later.filter((c) => 'read' in (READ_POLICY[c.table_name as keyof typeof READ_POLICY] ?? {}))
}

/** A household's version as a store's clock holds it. */
async function clock(db: Hearth['store']['db'], householdId: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('household_clock')
    .select('version')
    .where('household_id', '=', householdId)
    .executeTakeFirst()
  return row?.version
}

/** Account balances that differ from the sum of their live rows; empty when the ledger adds up. */
export async function unbalancedAccounts(db: Hearth['store']['db'], householdId: string) {
  const { rows } = await sql<{
    id: string
    balance: number
    sum: number
    cleared: number
    clearedSum: number
  }>`
    select a.id, a.balance_cents as balance, a.cleared_balance_cents as cleared,
      coalesce(sum(t.amount_cents) filter (where t.deleted_at is null and t.merged_into_id is null), 0)::bigint as sum,
      coalesce(sum(t.amount_cents) filter (
        where t.deleted_at is null and t.merged_into_id is null and t.status <> 'pending'), 0)::bigint as "clearedSum"
    from accounts a
    left join transactions t on t.household_id = a.household_id and t.account_id = a.id
    where a.household_id = ${householdId}
    group by a.id, a.balance_cents, a.cleared_balance_cents`.execute(db)
  return rows.filter((r) => r.balance !== r.sum || r.cleared !== r.clearedSum)
}
