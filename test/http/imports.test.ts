import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { apiClient, useTestServer } from '../src/index.ts'
import { expectProblem, expectStatus, H } from './catalog-fixture.ts'
import { createTransaction, expectBalancesExact, listAll } from './ledger-fixture.ts'

const server = useTestServer()
const file = (name: string) => readFileSync(new URL(`../fixtures/bank-files/${name}`, import.meta.url))

async function setup(currency = 'USD') {
  const owner = await server.newOwner()
  const account = expectStatus(
    await owner.api.post(`${H}/accounts`, { name: 'Checking', type: 'cash', currency }),
    201,
  )
  return { ...owner, account: account.id as string }
}

describe('bank file imports over HTTP', () => {
  it('previews, commits the plan, re-imports nothing, and undoes the batch', async () => {
    const { api, account } = await setup()
    const twin = await createTransaction(api, account, {
      date: '2025-03-06',
      amountCents: -5210,
      payeeName: 'Gas',
    })
    const body = { accountId: account, format: 'ofx', content: file('checking-1.02.ofx').toString('utf8') }
    const plan = expectStatus(await api.post(`${H}/imports/preview`, body), 200)
    expect(plan.rows.map((r: any) => r.outcome)).toEqual(['new', 'matched', 'new', 'new'])
    expect(plan.fileLedgerBalanceCents).toBe('242316')
    expect(await listAll(api)).toHaveLength(1)

    const result = expectStatus(await api.post(`${H}/imports`, { ...body, planDigest: plan.digest }), 201)
    expect(result).toMatchObject({
      batch: { createdCount: 3, matchedCount: 1, matched: [{ matchedTransactionId: twin.id }] },
      fileLedgerBalanceCents: '242316',
      accountBalanceCents: '242316',
    })
    const rows = await listAll(api)
    expect(rows.find((t: any) => t.importedId === '2025031204')).toMatchObject({
      importedPayee: 'AMZN Mktp US*2K4LM & Co',
    })
    expect(expectStatus(await api.get(`${H}/imports/${result.batch.id}`), 200)).toEqual(result.batch)
    expect(expectStatus(await api.get(`${H}/imports`), 200).items).toEqual([result.batch])

    const again = expectStatus(await api.post(`${H}/imports`, body), 201)
    expect(again.batch).toMatchObject({ createdCount: 0, duplicateCount: 4 })
    expectProblem(
      await api.post(`${H}/imports`, { ...body, planDigest: plan.digest }),
      409,
      'IMPORT_PLAN_CHANGED',
    )

    const undone = expectStatus(await api.post(`${H}/imports/${result.batch.id}/undo`), 200)
    expect(undone.undoneAt).not.toBeNull()
    expect((await listAll(api)).map((t: any) => t.id)).toEqual([twin.id])
    expectProblem(await api.post(`${H}/imports/${result.batch.id}/undo`), 409, 'IMPORT_ALREADY_UNDONE')
    await expectBalancesExact(api, account)
  })

  it('answers bad files with a 4xx and a code, never a 5xx, and imports nothing of them', async () => {
    const { api, account } = await setup()
    const post = (b: Record<string, unknown>) => api.post(`${H}/imports`, { accountId: account, ...b })
    expectProblem(await post({ format: 'ofx', content: '' }), 400, 'IMPORT_FILE_EMPTY')
    expectProblem(
      await post({ format: 'ofx', content: file('checking-1.02.ofx').toString('utf8').slice(0, 700) }),
      400,
      'IMPORT_FILE_TRUNCATED',
    )
    expectProblem(
      await post({
        format: 'csv',
        contentBase64: Buffer.from('PK\u0003\u0004\u0000\u0000zipbomb').toString('base64'),
      }),
      400,
      'IMPORT_FILE_BINARY',
    )
    const laughs = `<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><Document>&c;</Document>`
    expectProblem(await post({ format: 'camt053', content: laughs }), 400, 'IMPORT_FILE_UNSAFE')
    expectProblem(
      await post({ format: 'csv', content: 'Date,Amount\n2025-01-01,1.00\n', mapping: { payee: 'Name' } }),
      400,
      'IMPORT_COLUMN_MISSING',
    )
    expectProblem(
      await post({ format: 'camt053', content: file('statement.camt053.xml').toString('utf8') }),
      400,
      'IMPORT_CURRENCY_MISMATCH',
    )
    const refused = expectProblem(
      await post({
        format: 'csv',
        contentBase64: file('giro-windows-1252.csv').toString('base64'),
        mapping: { decimal: ',' },
      }),
      400,
      'IMPORT_ROWS_REFUSED',
    )
    expect(refused.refused).toEqual([{ line: 5, reason: expect.any(String) }])
    expectProblem(await post({ format: 'xls', content: 'x' }), 400, 'VALIDATION_FAILED')
    expectProblem(await post({ format: 'ofx' }), 400, 'VALIDATION_FAILED')
    expectProblem(
      await api.post(`${H}/imports`, {
        accountId: '01JD5Z9Y6XQ3M4N5P6R7S8T9V0',
        format: 'ofx',
        content: 'x',
      }),
      404,
      'NOT_FOUND',
    )
    // 1.3 MB passes the import routes' body limit; 80,000 rows are more than one import takes.
    const big = `Date,Amount\n${'2025-01-01,1.00\n'.repeat(80_000)}`
    expectProblem(await post({ format: 'csv', content: big }), 400, 'IMPORT_FILE_TOO_LARGE')
    expect(await listAll(api)).toEqual([])
  })

  it('needs write:transactions to commit and read:transactions to preview, and keeps a mapping per account', async () => {
    const owner = await setup('EUR')
    const { api, account } = owner
    const reader = apiClient(server.url, await server.issueKey(owner.userId, ['read:transactions']))
    const csv = {
      accountId: account,
      format: 'csv',
      contentBase64: file('giro-windows-1252.csv').toString('base64'),
    }
    expectStatus(await reader.post(`${H}/imports/preview`, csv), 200)
    expectProblem(await reader.post(`${H}/imports`, csv), 403, 'INSUFFICIENT_SCOPE')
    const mapping = {
      date: 'Buchungstag',
      amount: 'Betrag',
      payee: 'Beguenstigter/Zahlungspflichtiger',
      decimal: ',',
      dateFormat: 'DD.MM.YYYY',
    }
    expectStatus(await api.put(`${H}/accounts/${account}/import-mapping`, { mapping }), 200)
    expect(expectStatus(await api.get(`${H}/accounts/${account}/import-mapping`), 200)).toEqual({
      accountId: account,
      mapping,
    })
    const done = expectStatus(await api.post(`${H}/imports`, { ...csv, skipRefused: true }), 201)
    expect(done.batch).toMatchObject({ createdCount: 3, refusedCount: 1 })
    expect((await listAll(api)).map((t: any) => t.amountCents).sort()).toEqual(['-1250', '-4590', '210000'])
  })
})
