import { readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { closeDevice, closeDevices, expectConverged, newDevice, newDeviceFolder } from './devices.ts'

const server = useTestServer()

afterEach(async () => {
  await closeDevices()
})

/** Two ways a power cut tears a replica: a control file PostgreSQL refuses, a table's page of garbage. */
const DAMAGE: { name: string; damage: (pgdata: string, tagsFile: string) => void }[] = [
  {
    name: 'its control file is garbage (the folder does not open)',
    damage: (pgdata) => writeFileSync(join(pgdata, 'global', 'pg_control'), Buffer.alloc(8192, 7)),
  },
  {
    name: 'a table file holds a torn page (the folder opens, the check at open fails)',
    damage: (pgdata, tagsFile) => writeFileSync(join(pgdata, tagsFile), Buffer.alloc(8192, 7)),
  },
]

describe('a device whose replica was torn', () => {
  it.each(DAMAGE)(
    'is rebuilt from the server and keeps every queued mutation when $name',
    async ({ damage }) => {
      const owner = await server.newOwner()
      const folder = await newDeviceFolder()
      const device = await newDevice(server, owner, { store: folder })
      await device.sync.whenSynced()
      const online = await device.mutate.tags.create({ name: 'Synced before' })
      await expectConverged(server, owner.householdId, [device])
      const { rows } = await sql<{ path: string }>`select pg_relation_filepath('tags') as path`.execute(
        device.store.db,
      )
      // Offline: these live only in the device's queue (and its replica) when it goes down.
      await device.sync.disconnect()
      const queued = [
        await device.mutate.tags.create({ name: 'Queued one' }),
        await device.mutate.tags.create({ name: 'Queued two' }),
      ]
      await closeDevice(device)
      damage(join(folder, 'pgdata'), rows[0]!.path)

      const reopened = await newDevice(server, owner, { store: folder })
      await expectConverged(server, owner.householdId, [reopened])
      const names = (await reopened.query.tags.list({})).map((t) => t.name).sort()
      expect(names).toEqual(['Queued one', 'Queued two', 'Synced before'])
      const onServer = await server.store.db
        .selectFrom('tags')
        .select('id')
        .where('household_id', '=', owner.householdId)
        .execute()
      expect(onServer.map((t) => t.id).sort()).toEqual([online.id, ...queued.map((t) => t.id)].sort())
      // The torn folder is kept aside for a look, never deleted.
      expect(readdirSync(folder).filter((name) => name.startsWith('pgdata.damaged-'))).toHaveLength(1)
    },
    120_000,
  )
})
