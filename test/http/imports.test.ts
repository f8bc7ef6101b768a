import { readFileSync } from 'node:fs'
import { DEFAULT_COST_LIMITS } from '@hearth/server'
import { describe, expect, it } from 'vitest'
import { apiClient, useTestServer } from '../src/index.ts'
import { expectProblem, expectStatus, H } from './catalog-fixture.ts'
import { createTransaction, expectBalancesExact, listAll } from './ledger-fixture.ts'

// Imports are expensive calls and these tests make them back to back: no rest between them here
// (the cost limits have their own tests).
const server = useTestServer({ costLimits: { ...DEFAULT_COST_LIMITS, expensiveRestPercent: 0, yieldMs: 0 } })
const file = (name: string) => readFileSync(new URL(`../fixtures/bank-files/${name}`, import.meta.url))

/** A raw POST, as a browser's or curl's multipart upload (or any other body) is sent. */
async function send(
  token: string,
  path: string,
  body: FormData | string,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, ...headers },
    body,
  })
  const text = await res.text()
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : text }
}

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
  it('reads two OFX statements in one block, a CSV past its preamble in DD.MM.YY, and names refused rows by their true line', async () => {
    const owner = await setup('BRL')
    const ofx = {
      accountId: owner.account,
      format: 'ofx',
      content: file('two-statements-empty-first.ofx').toString('utf8'),
    }
    const result = expectStatus(await owner.api.post(`${H}/imports`, ofx), 201)
    expect(result).toMatchObject({
      batch: { createdCount: 6 },
      fileLedgerBalanceCents: '268193',
      accountBalanceCents: '268193',
    })

    const { api, account } = await setup('EUR')
    const csv = {
      accountId: account,
      format: 'csv',
      content: file('dkb-preamble-ddmmyy.csv').toString('utf8'),
    }
    const plan = expectStatus(await api.post(`${H}/imports/preview`, csv), 200)
    expect(plan.rows.map((r: any) => [r.line, r.outcome, r.date ?? null])).toEqual([
      [10, 'new', '2023-03-02'],
      [11, 'new', '2023-03-15'],
      [14, 'refused', null],
      [15, 'new', '2023-03-28'],
      [17, 'refused', null],
    ])
    expect(plan.rows[2].reason).toBe('"31.02.23" is not a day as DD.MM.YY.')
    const refused = expectProblem(await api.post(`${H}/imports`, csv), 400, 'IMPORT_ROWS_REFUSED')
    expect(refused.refused.map((r: any) => r.line)).toEqual([14, 17])

    // The same options said in the mapping, kept for the account, and used by its next file.
    const mapping = {
      headerLine: 9,
      dateFormat: 'DD.MM.YY',
      delimiter: ';',
      date: 'Buchungstag',
      amount: 'Betrag (EUR)',
    }
    const done = expectStatus(
      await api.post(`${H}/imports`, { ...csv, mapping, skipRefused: true, saveMapping: true }),
      201,
    )
    expect(done.batch).toMatchObject({ createdCount: 3, refusedCount: 2 })
    expect(expectStatus(await api.get(`${H}/accounts/${account}/import-mapping`), 200).mapping).toEqual(
      mapping,
    )
    expectStatus(
      await api.put(`${H}/accounts/${account}/import-mapping`, { mapping: { dateFormat: 'MM/DD/YY' } }),
      200,
    )
    const us = { accountId: account, format: 'csv', content: file('us-mmddyy.csv').toString('utf8') }
    expect(
      expectStatus(await api.post(`${H}/imports/preview`, us), 200).rows.map((r: any) => [
        r.line,
        r.date ?? null,
      ]),
    ).toEqual([
      [2, '2024-03-02'],
      [3, '2024-03-14'],
      [5, '2024-03-15'],
      [6, null],
    ])

    // Options that cannot be: a bad pattern, a header line in a file said to have none.
    const bad = expectProblem(
      await api.post(`${H}/imports/preview`, { ...us, mapping: { dateFormat: 'DD.MM.DD' } }),
      400,
      'VALIDATION_FAILED',
    )
    expect(JSON.stringify(bad.errors)).toContain('dateFormat')
    expectProblem(
      await api.post(`${H}/imports/preview`, { ...us, mapping: { header: false, headerLine: 2 } }),
      400,
      'VALIDATION_FAILED',
    )
    // A mapping of its own ({}), so the account's saved MM/DD/YY does not decide.
    const ambiguous = { ...us, mapping: {}, content: 'Date,Amount\n01/02/24,1.00\n' }
    expectProblem(await api.post(`${H}/imports/preview`, ambiguous), 400, 'IMPORT_DATE_FORMAT_AMBIGUOUS')
    expectProblem(
      await api.post(`${H}/imports/preview`, { ...us, mapping: {}, content: 'Date,Amount\nMarch 1,1.00\n' }),
      400,
      'IMPORT_DATE_FORMAT_UNKNOWN',
    )
  })

  it('takes the file as a multipart upload: format from the file name, fields as text, clear refusals', async () => {
    const { api, account } = await setup()
    const upload = (path: string, fields: Record<string, string | Blob>, fileName = 'statement.ofx') => {
      const form = new FormData()
      for (const [k, v] of Object.entries(fields)) {
        if (v instanceof Blob) form.append(k, v, fileName)
        else form.append(k, v)
      }
      return send(api.token, `${H}${path}`, form)
    }
    const ofx = new Blob([file('checking-1.02.ofx')])
    const plan = expectStatus(await upload('/imports/preview', { accountId: account, file: ofx }), 200)
    expect(plan).toMatchObject({ format: 'ofx', counts: { new: 4 }, bankAccount: { status: 'new' } })
    expect(await listAll(api)).toEqual([])

    const key = { 'idempotency-key': 'multipart-1' }
    const form = () => {
      const f = new FormData()
      f.append('accountId', account)
      f.append('planDigest', plan.digest)
      f.append('acceptBankAccount', 'false')
      f.append('file', ofx, 'statement.ofx')
      return f
    }
    const first = await send(api.token, `${H}/imports`, form(), key)
    const committed = expectStatus(first, 201)
    expect(committed.batch).toMatchObject({ createdCount: 4, format: 'ofx' })
    // A retry draws a new boundary; the same fields and file are the same request.
    const retry = await send(api.token, `${H}/imports`, form(), key)
    expect(retry.status).toBe(201)
    expect(retry.headers.get('idempotent-replayed')).toBe('true')
    expect(retry.body).toEqual(committed)
    expect(await listAll(api)).toHaveLength(4)

    // CSV with its mapping as JSON text and a Windows-1252 encoding.
    const csv = expectStatus(
      await upload(
        '/imports/preview',
        {
          accountId: account,
          encoding: 'windows-1252',
          mapping: JSON.stringify({ decimal: ',' }),
          file: new Blob([file('giro-windows-1252.csv')]),
        },
        'umsaetze.CSV',
      ),
      200,
    )
    expect(csv).toMatchObject({ format: 'csv', counts: { refused: 1 } })
    expect(csv.rows.some((r: any) => /ü|ö|ä|ß/.test(r.payee ?? ''))).toBe(true)

    expectProblem(
      await upload('/imports/preview', { accountId: account, file: ofx }, 'statement.pdf'),
      400,
      'VALIDATION_FAILED',
    )
    expectProblem(
      await upload('/imports/preview', { accountId: account, file: 'not a file part' }),
      400,
      'VALIDATION_FAILED',
    )
    expectProblem(
      await upload('/imports/preview', { accountId: account, mapping: '{oops', format: 'csv', file: ofx }),
      400,
      'VALIDATION_FAILED',
    )
    expectProblem(
      await upload('/imports', { accountId: account, skipRefused: 'yes', file: ofx }),
      400,
      'VALIDATION_FAILED',
    )
    expectProblem(
      await upload('/imports/preview', { accountId: account, file: new Blob(['PK\u0003\u0004\u0000zip']) }),
      400,
      'IMPORT_FILE_BINARY',
    )
    expectProblem(
      await upload('/imports/preview', {
        accountId: account,
        file: new Blob([new Uint8Array(10 * 1024 * 1024 + 1).fill(65)]),
      }),
      400,
      'IMPORT_FILE_TOO_LARGE',
    )
    expectProblem(
      await upload('/imports/preview', {
        accountId: account,
        file: new Blob([new Uint8Array(14 * 1024 * 1024).fill(65)]),
      }),
      413,
      'PAYLOAD_TOO_LARGE',
    )
    expectProblem(
      await send(api.token, `${H}/imports/preview`, '--x\r\nbroken', {
        'content-type': 'multipart/form-data; boundary=nothere',
      }),
      400,
      'MALFORMED_MULTIPART',
    )
    expectProblem(
      await send(api.token, `${H}/imports/preview`, 'accountId=x', {
        'content-type': 'application/x-www-form-urlencoded',
      }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    )
    expect(await listAll(api)).toHaveLength(4)

    // The OpenAPI document offers both bodies on both routes, with the form's fields.
    const doc = (await apiClient(server.url, null).get('/openapi.json')).body
    for (const path of ['/households/{householdId}/imports', '/households/{householdId}/imports/preview']) {
      const content = doc.paths[path].post.requestBody.content
      expect(Object.keys(content).sort()).toEqual(['application/json', 'multipart/form-data'])
    }
    const commitForm = doc.components.schemas.ImportCommitForm
    expect(commitForm.properties.file).toMatchObject({ type: 'string', format: 'binary' })
    expect(Object.keys(commitForm.properties)).toContain('acceptBankAccount')
  })

  it('records the bank account a file names, and refuses a file of another account unless accepted', {
    timeout: 90_000,
  }, async () => {
    const { api, account } = await setup()
    const savings = expectStatus(
      await api.post(`${H}/accounts`, { name: 'Savings', type: 'cash', currency: 'USD' }),
      201,
    )
    const checking = file('checking-1.02.ofx').toString('utf8')
    const body = { accountId: account, format: 'ofx', content: checking }
    const first = expectStatus(await api.post(`${H}/imports/preview`, body), 200)
    expect(first.bankAccount).toEqual({
      status: 'new',
      file: '121000248/000123456789',
      account: null,
      otherAccountId: null,
      message: expect.stringContaining('records it'),
    })
    const done = expectStatus(await api.post(`${H}/imports`, body), 201)
    expect(done.bankAccount.status).toBe('new')
    expect(expectStatus(await api.get(`${H}/accounts/${account}`), 200).bankAccount).toBe(
      '121000248/000123456789',
    )
    expect(expectStatus(await api.post(`${H}/imports/preview`, body), 200).bankAccount.status).toBe('matches')

    // The same file into the savings account: another account holds its bank account.
    const wrong = { ...body, accountId: savings.id }
    const plan = expectStatus(await api.post(`${H}/imports/preview`, wrong), 200)
    expect(plan.bankAccount).toMatchObject({ status: 'otherAccount', otherAccountId: account })
    const refused = expectProblem(await api.post(`${H}/imports`, wrong), 409, 'IMPORT_ACCOUNT_MISMATCH')
    expect(refused).toMatchObject({ fileBankAccount: '121000248/000123456789', otherAccountId: account })
    expect((await listAll(api)).filter((t: any) => t.accountId === savings.id)).toEqual([])

    // A file of an account no account holds, into an account that records another one.
    const other = checking.replace('<ACCTID>000123456789', '<ACCTID>999888777')
    const unknown = { ...body, content: other.replaceAll('<FITID>2025', '<FITID>X2025') }
    expect(expectStatus(await api.post(`${H}/imports/preview`, unknown), 200).bankAccount).toMatchObject({
      status: 'unknown',
      file: '121000248/999888777',
      account: '121000248/000123456789',
    })
    expectProblem(await api.post(`${H}/imports`, unknown), 409, 'IMPORT_ACCOUNT_MISMATCH')
    // Accepted (a reissued card, say): imported, and the account records the new number.
    const accepted = expectStatus(
      await api.post(`${H}/imports`, { ...unknown, acceptBankAccount: true }),
      201,
    )
    expect(accepted.batch.createdCount).toBe(4)
    expect(expectStatus(await api.get(`${H}/accounts/${account}`), 200).bankAccount).toBe(
      '121000248/999888777',
    )

    // The user sets or clears it; a number typed without its bank matches the file's.
    const patched = expectStatus(
      await api.patch(`${H}/accounts/${savings.id}`, { bankAccount: ' de89 3704 0044 0532 0130 00 ' }),
      200,
    )
    expect(patched.bankAccount).toBe('DE89370400440532013000')
    expectStatus(await api.patch(`${H}/accounts/${account}`, { bankAccount: '000123456789' }), 200)
    expect(expectStatus(await api.post(`${H}/imports/preview`, body), 200).bankAccount.status).toBe('matches')
    expectProblem(
      await api.patch(`${H}/accounts/${account}`, { bankAccount: '   ' }),
      400,
      'VALIDATION_FAILED',
    )
    expect(
      expectStatus(await api.patch(`${H}/accounts/${account}`, { bankAccount: null }), 200).bankAccount,
    ).toBeNull()
    // CSV states no account: nothing to check.
    const csv = { accountId: account, format: 'csv', content: 'Date,Amount,Payee\n2025-01-02,-1.00,X\n' }
    expect(expectStatus(await api.post(`${H}/imports/preview`, csv), 200).bankAccount.status).toBe('none')
    await expectBalancesExact(api, account)
  })
})
