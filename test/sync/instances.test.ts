import { loadConfig, type RunningServer, startServer } from '@hearth/server'
import pino from 'pino'
import { ulid } from 'ulidx'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { newOwner, sharedStore, TEST_DATABASE_URL } from '../src/index.ts'
import { closeDevices, eventually, expectConverged, newDevice } from './devices.ts'

let first: RunningServer
let second: RunningServer

/** A server over this worker's store; on PostgreSQL it LISTENs for the other instance's writes. */
async function instance(): Promise<RunningServer> {
  const config = { ...loadConfig({}), port: 0, host: '127.0.0.1', databaseUrl: TEST_DATABASE_URL }
  return startServer(config, { store: await sharedStore(), logger: pino({ level: 'silent' }) })
}

beforeAll(async () => {
  // Two server instances over one database, as two processes behind a load balancer would be.
  first = await instance()
  second = await instance()
})
afterEach(closeDevices)
afterAll(async () => {
  await first?.close()
  await second?.close()
})

describe('several server instances', () => {
  it('shows a change pushed through one instance on a device attached to the other', async () => {
    const owner = await newOwner(first)
    const a = await newDevice(first, owner)
    const b = await newDevice(second, owner)
    await Promise.all([a.sync.whenSynced(), b.sync.whenSynced()])
    const id = ulid()
    await a.mutate.createTag({ id, name: 'Holiday' })
    await eventually(async () => expect((await b.query.listTags({})).map((t) => t.id)).toEqual([id]))
    await b.mutate.updateTag({ id, name: 'Summer holiday' })
    await eventually(async () =>
      expect(await a.query.getTag({ id })).toMatchObject({ name: 'Summer holiday' }),
    )
    await expectConverged(first, owner.householdId, [a, b])
  })
})
