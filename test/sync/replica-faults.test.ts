import type { Hearth } from '@hearth/client'
import { dumpHousehold } from '@hearth/engine/sync'
import fc from 'fast-check'
import { sql } from 'kysely'
import { ulid } from 'ulidx'
import { afterEach, describe, expect, it } from 'vitest'
import { type TestMember, useTestServer } from '../src/index.ts'
import { eventually, expectConverged } from './devices.ts'
import { closeFaultyDevices, Faults, faultyDevice, type SdkEntry } from './faults.ts'

// Small pages, so a catch-up delta and a snapshot each arrive in many frames to drop between.
const server = useTestServer({ syncPageRows: 4 })

afterEach(() => closeFaultyDevices())

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits until the device's connection holds frames of every type in `types`, in that order. */
async function heldInOrder(faults: Faults, types: string[]): Promise<void> {
  await eventually(() => {
    const held = faults.socket?.heldTypes ?? []
    let at = 0
    for (const t of held) if (t === types[at]) at++
    expect(at, `held: ${held.join(', ')}`).toBe(types.length)
  })
}

/** Every replica table, row by row, equal to the server's for the device's key, and no protocol error. */
/**
 * A check's outcome once it could compare: `inconclusive` means "not now" (a check the device
 * started on its reconnect answered as the household moved, say), so it is asked again.
 */
async function conclusiveCheck(device: Hearth): Promise<string> {
  for (let tries = 0; ; tries++) {
    const { outcome } = await device.sync.check()
    if (outcome !== 'inconclusive' || tries === 20) return outcome
    await sleep(500)
  }
}

async function expectWhole(owner: TestMember, devices: Hearth[], faults: Faults[]) {
  for (const f of faults) {
    f.queueDelayMs = 0
    f.release()
  }
  for (const d of devices) d.sync.connect()
  await expectConverged(server, owner.householdId, devices, 90_000)
  for (const f of faults) expect(f.errors.filter((e) => e.code === 'HELLO_FIRST')).toEqual([])
}

describe.each<SdkEntry>(['node', 'browser'])('a device replica never skips a change (%s entry)', (entry) => {
  it('the reported case: a delta queued behind a refused push whose queue write is slow, then a drop', async () => {
    const owner = await server.newOwner()
    const faults = new Faults()
    const device = await faultyDevice(server, owner, faults, entry)
    await device.sync.whenSynced({ timeoutMs: 120_000 })

    faults.hold()
    // D1: a tag the device has not heard of yet.
    expect((await owner.api.post('/households/current/tags', { name: 'Groceries' })).status).toBe(201)
    await heldInOrder(faults, ['delta'])
    // The device creates the same name: its replica accepts it, the server refuses it
    // (TAG_NAME_TAKEN), and the local call waits on its slow durable queue write.
    faults.queueDelayMs = 1500
    const local = device.mutate.tags.create({ name: 'groceries' })
    await heldInOrder(faults, ['delta', 'pushResult'])
    // D2: a payee, after the refusal.
    expect((await owner.api.post('/households/current/payees', { name: 'Bakery' })).status).toBe(201)
    await heldInOrder(faults, ['delta', 'pushResult', 'delta'])

    // D1 is taken and queued for its rebase; the refusal waits on the local call; the connection
    // drops while it waits, with D2 already handed over.
    faults.release()
    await sleep(50)
    faults.drop()
    await local
    await expectWhole(owner, [device], [faults])
    const names = await device.query.payees.list({})
    expect(JSON.stringify(names)).toContain('Bakery')
    expect(device.sync.rejected.map((r) => r.code)).toContain('TAG_NAME_TAKEN')
  }, 180_000)

  it('drops at every page of a catch-up delta and of a snapshot, and still ends whole', async () => {
    const owner = await server.newOwner()
    const faults = new Faults()
    const device = await faultyDevice(server, owner, faults, entry)
    await device.sync.whenSynced({ timeoutMs: 120_000 })
    // The browser entry's store (IndexedDB, here fake-indexeddb) is slower: fewer rounds.
    const rounds = entry === 'node' ? 4 : 2
    for (let k = 0; k < rounds; k++) {
      await device.sync.disconnect()
      // Changes in several versions: a catch-up delta of several pages of 4 rows.
      for (let i = 0; i < 5; i++) {
        await owner.api.post('/households/current/tags', { name: `Tag ${k}.${i}` })
        await owner.api.post('/households/current/payees', { name: `Payee ${k}.${i}` })
      }
      let deltas = 0
      faults.dropAfter((type) => type === 'delta' && ++deltas === k + 1)
      device.sync.connect()
      await expectWhole(owner, [device], [faults])
    }
    // A new device's snapshot, dropped after its first, second, ... page.
    for (let k = 1; k < rounds; k++) {
      const fresh = new Faults()
      let pages = 0
      fresh.dropAfter((type) => type === 'snapshot' && ++pages === k)
      const other = await faultyDevice(server, owner, fresh, entry)
      await expectWhole(owner, [other], [fresh])
    }
  }, 300_000)

  it('finds a replica damaged behind the SDK’s back, and repairs it from a snapshot', async () => {
    const owner = await server.newOwner()
    await owner.api.post('/households/current/tags', { name: 'Kept' })
    const account = await owner.api.post('/households/current/accounts', {
      name: 'Checking',
      type: 'cash',
      openingBalanceCents: 10_000,
    })
    expect(account.status).toBe(201)
    const faults = new Faults()
    const device = await faultyDevice(server, owner, faults, entry, { checkEveryMs: 0 })
    await device.sync.whenSynced({ timeoutMs: 120_000 })
    // Every connect compares once; an undamaged replica matches.
    await eventually(() => expect(device.stats.replicaChecks).toBeGreaterThanOrEqual(1))
    expect(device.stats.replicaRepairs).toBe(0)
    expect(await device.sync.check()).toEqual({ outcome: 'match', tables: [] })

    const repaired: { tables: string[] }[] = []
    device.on('replica.repaired', (e) => repaired.push(e))
    // Damage: a row deleted and another changed in the replica's store, as a bug would.
    await device.store.db.transaction().execute(async (tx) => {
      await sql`set local session_replication_role = replica`.execute(tx)
      await tx.deleteFrom('tags').where('household_id', '=', owner.householdId).execute()
      await tx
        .updateTable('accounts')
        .set({ name: 'Wrong' })
        .where('household_id', '=', owner.householdId)
        .execute()
    })
    expect(await device.sync.check()).toEqual({ outcome: 'repaired', tables: ['accounts', 'tags'] })
    expect(repaired).toEqual([expect.objectContaining({ tables: ['accounts', 'tags'] })])
    expect(await dumpHousehold(device.store.db, owner.householdId)).toEqual(
      await dumpHousehold(server.store.db, owner.householdId),
    )
    expect(await device.sync.check()).toEqual({ outcome: 'match', tables: [] })
  }, 180_000)
})

describe('the replica digest', () => {
  it('matches the server’s for a member with narrow scopes and for own-rows tables', async () => {
    const owner = await server.newOwner()
    await owner.api.post('/households/current/tags', { name: 'Holiday' })
    await owner.api.post('/households/current/payees', { name: 'Grocer' })
    const account = await owner.api.post('/households/current/accounts', {
      name: 'Cash',
      type: 'cash',
      openingBalanceCents: 5_000,
    })
    await owner.api.post(`/households/current/transactions`, {
      accountId: account.body.id,
      date: '2026-11-01',
      amountCents: -1234,
      payeeName: 'Grocer',
      memo: 'ünïcode ✓',
    })
    const member = await server.newMember(owner, 'member', [
      'read:households',
      'read:tags',
      'read:notifications',
    ])
    const faults = new Faults()
    const device = await faultyDevice(server, member, faults, 'node', { checkEveryMs: 0 })
    await device.sync.whenSynced({ timeoutMs: 120_000 })
    expect(await device.sync.check()).toEqual({ outcome: 'match', tables: [] })
    const ownerDevice = await faultyDevice(server, owner, new Faults(), 'node', { checkEveryMs: 0 })
    await ownerDevice.sync.whenSynced({ timeoutMs: 120_000 })
    expect(await ownerDevice.sync.check()).toEqual({ outcome: 'match', tables: [] })
  }, 180_000)
})

type Step =
  | { kind: 'rest'; what: 'tag' | 'payee' | 'rename'; n: number }
  | { kind: 'mutate'; device: number; what: 'tag' | 'taken' | 'payee'; n: number }
  | { kind: 'hold' | 'release' | 'drop' | 'releaseDrop' | 'slow' | 'fast'; device: number }
  | { kind: 'pause'; ms: number }

const device = fc.nat(1)
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('rest' as const),
      what: fc.constantFrom('tag' as const, 'payee' as const, 'rename' as const),
      n: fc.nat(50),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('mutate' as const),
      device,
      what: fc.constantFrom('tag' as const, 'taken' as const, 'payee' as const),
      n: fc.nat(50),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constantFrom(
        'hold' as const,
        'release' as const,
        'drop' as const,
        'releaseDrop' as const,
        'slow' as const,
        'fast' as const,
      ),
      device,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('pause' as const), ms: fc.integer({ min: 0, max: 60 }) }),
  },
)

describe('random fault schedules', () => {
  it('end with every replica equal to the server, row by row, on both SDK entries', async () => {
    const seed = Number(process.env.SYNC_FAULT_SEED ?? Date.now() % 2 ** 31)
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 10, maxLength: 30 }), async (steps) => {
        const owner = await server.newOwner()
        const account = await owner.api.post('/households/current/accounts', { name: 'A', type: 'cash' })
        const faults = [new Faults(), new Faults()]
        const devices = [
          await faultyDevice(server, owner, faults[0]!, 'node', { checkEveryMs: 0 }),
          await faultyDevice(server, owner, faults[1]!, 'browser', { checkEveryMs: 0 }),
        ]
        await Promise.all(devices.map((d) => d.sync.whenSynced({ timeoutMs: 120_000 })))
        const calls: Promise<unknown>[] = []
        try {
          for (const s of steps) {
            if (s.kind === 'pause') await sleep(s.ms)
            else if (s.kind === 'rest') {
              if (s.what === 'tag') await owner.api.post('/households/current/tags', { name: `Tag ${s.n}` })
              else if (s.what === 'payee')
                await owner.api.post('/households/current/payees', { name: `Payee ${s.n} ${ulid()}` })
              else
                await owner.api.patch(`/households/current/accounts/${account.body.id}`, { name: `A ${s.n}` })
            } else if (s.kind === 'mutate') {
              const d = devices[s.device]!
              // `taken` repeats a name the server may already hold: refused there, not always here.
              const call =
                s.what === 'payee'
                  ? d.mutate.payees.create({ name: `Device payee ${ulid()}` })
                  : d.mutate.tags.create({ name: s.what === 'taken' ? `Tag ${s.n}` : `Device tag ${ulid()}` })
              calls.push(call.catch(() => {}))
              await sleep(5)
            } else {
              const f = faults[s.device]!
              if (s.kind === 'hold') f.hold()
              else if (s.kind === 'release') f.release()
              else if (s.kind === 'drop') f.drop()
              else if (s.kind === 'slow') f.queueDelayMs = 300
              else if (s.kind === 'fast') f.queueDelayMs = 0
              else {
                f.release()
                await sleep(20)
                f.drop()
              }
            }
          }
          await Promise.all(calls)
          await expectWhole(owner, devices, faults)
          for (const d of devices) expect(await conclusiveCheck(d)).toBe('match')
        } finally {
          await closeFaultyDevices()
        }
      }),
      { numRuns: Number(process.env.SYNC_FAULT_RUNS ?? 3), seed, endOnFailure: true },
    )
  }, 600_000)
})
