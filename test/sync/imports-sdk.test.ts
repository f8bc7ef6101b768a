import { readFileSync } from 'node:fs'
import { ulid } from 'ulidx'
import { afterEach, describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { closeDevices, expectConverged, newDevice } from './devices.ts'

const server = useTestServer()
afterEach(async () => {
  await closeDevices()
})

const H = '/households/current'
const file = (name: string) => readFileSync(new URL(`../fixtures/bank-files/${name}`, import.meta.url))

describe('bank file imports on a device', () => {
  it('previews and commits a file offline, the server reaches the same rows, and an undo on the device undoes it everywhere', async () => {
    const owner = await server.newOwner()
    const { api, householdId } = owner
    const account = (await api.post(`${H}/accounts`, { name: 'Card', type: 'credit', currency: 'USD' })).body
      .id
    const twin = (
      await api.post(`${H}/transactions`, {
        accountId: account,
        date: '2025-03-05',
        amountCents: -3100,
        payeeName: 'Diner',
      })
    ).body
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    await device.sync.disconnect()

    const qfx = { accountId: account, format: 'qfx' as const, content: file('card-2.2.qfx').toString('utf8') }
    const plan = await device.query.imports.preview(qfx)
    expect(plan.rows.map((r) => r.outcome)).toEqual(['new', 'matched', 'new'])
    const result = await device.mutate.imports.commit({ ...qfx, id: ulid(), planDigest: plan.digest })
    expect(result).toMatchObject({
      batch: { createdCount: 2, matchedCount: 1 },
      fileLedgerBalanceCents: '-5660',
    })
    device.sync.connect()
    await device.sync.whenSynced()
    await expectConverged(server, householdId, [device])
    const onServer = (await api.get(`${H}/imports/${result.batch.id}`)).body
    expect(onServer).toEqual(await device.query.imports.get({ id: result.batch.id }))
    expect((await api.get(`${H}/transactions/${twin.id}`)).body).toMatchObject({
      date: '2025-03-04',
      status: 'cleared',
    })
    // The same file again, from REST: nothing new.
    expect((await api.post(`${H}/imports`, qfx)).body.batch).toMatchObject({
      createdCount: 0,
      duplicateCount: 3,
    })

    await device.sync.whenSynced()
    await device.mutate.imports.undo({ id: result.batch.id })
    await device.sync.whenSynced()
    await expectConverged(server, householdId, [device])
    const rows = (await api.get(`${H}/transactions`)).body.items
    expect(rows.map((t: any) => t.id)).toEqual([twin.id])
    expect(rows[0]).toMatchObject({ date: '2025-03-05', matchedTransactionId: null })
    expect((await api.get(`${H}/imports/${result.batch.id}`)).body.undoneAt).not.toBeNull()
    // A device boot, an offline import, two syncs and an undo: more than the default 30 s on a busy machine.
  }, 120_000)

  it('reads a Windows-1252 CSV and a camt.053 file on the device as the server does', async () => {
    const owner = await server.newOwner()
    const { api } = owner
    const account = (await api.post(`${H}/accounts`, { name: 'Giro', type: 'cash', currency: 'EUR' })).body.id
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    const csv = {
      accountId: account,
      format: 'csv' as const,
      contentBase64: file('giro-windows-1252.csv').toString('base64'),
    }
    expect(await device.query.imports.preview(csv)).toEqual(
      (await api.post(`${H}/imports/preview`, csv)).body,
    )
    const camt = {
      accountId: account,
      format: 'camt053' as const,
      content: file('statement.camt053.xml').toString('utf8'),
    }
    expect(await device.query.imports.preview(camt)).toEqual(
      (await api.post(`${H}/imports/preview`, camt)).body,
    )
    await expect(device.query.imports.preview({ ...camt, content: '<Document>' })).rejects.toMatchObject({
      status: 400,
      code: 'IMPORT_FILE_TRUNCATED',
    })
  })
  it('reads a preamble CSV in DD.MM.YY with a mapping saved on the device, and a two-statement OFX, as the server does', async () => {
    const owner = await server.newOwner()
    const { api, householdId } = owner
    const account = (await api.post(`${H}/accounts`, { name: 'Giro', type: 'cash', currency: 'EUR' })).body.id
    const real = (await api.post(`${H}/accounts`, { name: 'Conta', type: 'cash', currency: 'BRL' })).body.id
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    const mapping = { headerLine: 9, dateFormat: 'DD.MM.YY', delimiter: ';' as const }
    await device.mutate.imports.saveMapping({ id: account, mapping })
    await expect(
      device.mutate.imports.saveMapping({ id: account, mapping: { header: false, headerLine: 3 } }),
    ).rejects.toMatchObject({ status: 400, code: 'VALIDATION_FAILED' })
    await device.sync.whenSynced()
    await expectConverged(server, householdId, [device])
    expect((await api.get(`${H}/accounts/${account}/import-mapping`)).body.mapping).toEqual(mapping)
    const csv = {
      accountId: account,
      format: 'csv' as const,
      content: file('dkb-preamble-ddmmyy.csv').toString('utf8'),
    }
    const plan = await device.query.imports.preview(csv)
    expect(plan.rows.filter((r) => r.outcome === 'refused').map((r) => r.line)).toEqual([14, 17])
    expect(plan).toEqual((await api.post(`${H}/imports/preview`, csv)).body)
    const ofx = {
      accountId: real,
      format: 'ofx' as const,
      content: file('two-statements-empty-first.ofx').toString('utf8'),
    }
    const ofxPlan = await device.query.imports.preview(ofx)
    expect(ofxPlan.counts).toMatchObject({ new: 6, refused: 0 })
    expect(ofxPlan).toEqual((await api.post(`${H}/imports/preview`, ofx)).body)
  }, 120_000)

  it("records the file's bank account on the device, the server gets it, and a file of another account is refused there", async () => {
    const owner = await server.newOwner()
    const { api, householdId } = owner
    const giro = (await api.post(`${H}/accounts`, { name: 'Giro', type: 'cash', currency: 'EUR' })).body.id
    const other = (await api.post(`${H}/accounts`, { name: 'Other', type: 'cash', currency: 'EUR' })).body.id
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()
    await device.sync.disconnect()
    const camt = {
      accountId: giro,
      format: 'camt053' as const,
      content: file('statement.camt053.xml').toString('utf8'),
    }
    expect((await device.query.imports.preview(camt)).bankAccount).toMatchObject({
      status: 'new',
      file: 'DE89370400440532013000',
    })
    const result = await device.mutate.imports.commit({ ...camt, id: ulid() })
    expect(result.bankAccount.status).toBe('new')
    expect((await device.query.accounts.get({ id: giro })).bankAccount).toBe('DE89370400440532013000')
    const wrong = { ...camt, accountId: other }
    expect((await device.query.imports.preview(wrong)).bankAccount).toMatchObject({
      status: 'otherAccount',
      otherAccountId: giro,
    })
    await expect(device.mutate.imports.commit({ ...wrong, id: ulid() })).rejects.toMatchObject({
      status: 409,
      code: 'IMPORT_ACCOUNT_MISMATCH',
    })
    device.sync.connect()
    await device.sync.whenSynced()
    await expectConverged(server, householdId, [device])
    expect((await api.get(`${H}/accounts/${giro}`)).body.bankAccount).toBe('DE89370400440532013000')
    expect((await api.post(`${H}/imports/preview`, wrong)).body.bankAccount).toEqual(
      (await device.query.imports.preview(wrong)).bankAccount,
    )
  }, 120_000)
})
