import { readFileSync } from 'node:fs'
import { operations } from '@hearth/engine'
import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { expectBalancesExact, ledgerHousehold, newAccount, newTransaction } from '../ledger/test-fixture.ts'

const imports = operations.imports
const file = (name: string) =>
  readFileSync(new URL(`../../../../test/fixtures/bank-files/${name}`, import.meta.url))

async function household(currency = 'USD') {
  const h = await ledgerHousehold({ baseCurrency: currency })
  const account = await newAccount(h, { currency })
  return { h, account: account.id }
}

describe('bank file imports', () => {
  it('previews without changing anything, commits exactly that plan, and a second commit imports nothing', async () => {
    const { h, account } = await household()
    // A hand-entered twin of the Shell row, two days off: the match engine folds the bank row in.
    const twin = await newTransaction(h, account, {
      date: '2025-03-07',
      amountCents: -5210,
      payeeName: 'Gas',
    })
    const ofx = {
      accountId: account,
      format: 'ofx' as const,
      content: file('checking-1.02.ofx').toString('utf8'),
    }
    const plan = await h.read(imports.preview, ofx)
    expect(plan.rows.map((r) => [r.line, r.outcome, r.importedId])).toEqual([
      [39, 'new', '2025030301'],
      [47, 'matched', '2025030502'],
      [54, 'new', '2025031003'],
      [62, 'new', '2025031204'],
    ])
    expect(plan.rows[1]!.matchedTransactionId).toBe(twin.id)
    expect(plan).toMatchObject({
      counts: { new: 3, matched: 1, duplicate: 0 },
      fileLedgerBalanceCents: '242316',
    })
    expect((await h.read(operations.transactions.list, {})).items).toHaveLength(1)

    const result = await h.run(imports.commit, { ...ofx, id: ulid(), planDigest: plan.digest })
    expect(result.batch).toMatchObject({ createdCount: 3, matchedCount: 1, duplicateCount: 0 })
    expect(result).toMatchObject({ fileLedgerBalanceCents: '242316', accountBalanceCents: '242316' })
    const rows = (await h.read(operations.transactions.list, {})).items
    expect(rows.map((t) => t.importedPayee ?? '-').sort()).toEqual([
      '-',
      'ACME CORP PAYROLL',
      'AMZN Mktp US*2K4LM & Co',
      'STARBUCKS #1234 SEATTLE WA',
    ])
    expect((await h.read(operations.transactions.get, { id: twin.id })).date).toBe('2025-03-05')

    const again = await h.read(imports.preview, ofx)
    expect(again.counts).toMatchObject({ new: 0, duplicate: 4 })
    const second = await h.run(imports.commit, { ...ofx, id: ulid() })
    expect(second.batch).toMatchObject({ createdCount: 0, matchedCount: 0, duplicateCount: 4 })
    expect((await h.read(operations.transactions.list, {})).items).toHaveLength(4)
    await expectBalancesExact(h)
  })

  it('imports a row with two twins marked as a possible duplicate, leaving both twins as they were', async () => {
    const { h, account } = await household()
    const twins = [
      await newTransaction(h, account, { date: '2025-03-04', amountCents: -5210, payeeName: 'Gas' }),
      await newTransaction(h, account, { date: '2025-03-07', amountCents: -5210, payeeName: 'Gas' }),
    ]
    const ofx = {
      accountId: account,
      format: 'ofx' as const,
      content: file('checking-1.02.ofx').toString('utf8'),
    }
    const plan = await h.read(imports.preview, ofx)
    expect(plan.counts).toMatchObject({ new: 3, ambiguous: 1, matched: 0 })
    expect(plan.rows[1]).toMatchObject({ outcome: 'ambiguous', candidateIds: twins.map((t) => t.id) })
    const { batch } = await h.run(imports.commit, { ...ofx, id: ulid(), planDigest: plan.digest })
    expect(batch).toMatchObject({ createdCount: 4, matchedCount: 0 })
    const rows = (await h.read(operations.transactions.list, {})).items
    expect(rows.filter((t) => t.possibleDuplicate).map((t) => t.importedId)).toEqual(['2025030502'])
    for (const twin of twins)
      expect(await h.read(operations.transactions.get, { id: twin.id })).toMatchObject({
        date: twin.date,
        matchedTransactionId: null,
      })
    await expectBalancesExact(h)
  })

  it('undoes a batch: new rows go, the twin is restored, and the file can come in again', async () => {
    const { h, account } = await household()
    const twin = await newTransaction(h, account, {
      date: '2025-03-07',
      amountCents: -5210,
      payeeName: 'Gas',
    })
    const before = await h.read(operations.transactions.get, { id: twin.id })
    const ofx = {
      accountId: account,
      format: 'ofx' as const,
      content: file('checking-1.02.ofx').toString('utf8'),
    }
    const { batch } = await h.run(imports.commit, { ...ofx, id: ulid() })
    const undone = await h.run(imports.undo, { id: batch.id })
    expect(undone.undoneAt).not.toBeNull()
    expect((await h.read(operations.transactions.list, {})).items.map((t) => t.id)).toEqual([twin.id])
    const restored = await h.read(operations.transactions.get, { id: twin.id })
    expect(restored).toMatchObject({ date: before.date, status: before.status, matchedTransactionId: null })
    expect((await h.read(operations.accounts.get, { id: account })).balanceCents).toBe('-5210')
    await expect(h.run(imports.undo, { id: batch.id })).rejects.toMatchObject({
      status: 409,
      code: 'IMPORT_ALREADY_UNDONE',
    })
    expect((await h.read(imports.preview, ofx)).counts).toMatchObject({ new: 3, matched: 1 })
    const third = await h.run(imports.commit, { ...ofx, id: ulid() })
    expect(third.batch.createdCount).toBe(3)
    await expectBalancesExact(h)
  })

  it('refuses to undo a batch one of whose rows was reconciled since, naming the row', async () => {
    const { h, account } = await household()
    const ofx = { accountId: account, format: 'qfx' as const, content: file('card-2.2.qfx').toString('utf8') }
    const { batch } = await h.run(imports.commit, { ...ofx, id: ulid() })
    await h.run(operations.accounts.reconcile, {
      id: account,
      statementBalanceCents: -4340,
      statementDate: '2025-03-05',
      adjustmentId: ulid(),
    })
    const reconciled = (await h.read(operations.transactions.list, {})).items.filter(
      (t) => t.status === 'reconciled',
    )
    expect(reconciled.length).toBeGreaterThan(0)
    const e = await h.run(imports.undo, { id: batch.id }).catch((x: unknown) => x)
    expect(e).toMatchObject({
      status: 409,
      code: 'TRANSACTION_RECONCILED',
      extra: { transactionId: expect.any(String) },
    })
    expect(batch.transactionIds).toContain((e as { extra: { transactionId: string } }).extra.transactionId)
    expect((await h.read(imports.get, { id: batch.id })).undoneAt).toBeNull()
  })

  it('imports camt.053 and CSV with refused rows only when asked, with a fingerprint for rows without ids, and a saved mapping', async () => {
    const { h, account } = await household('EUR')
    const camt = await h.run(imports.commit, {
      id: ulid(),
      accountId: account,
      format: 'camt053',
      content: file('statement.camt053.xml').toString('utf8'),
    })
    expect(camt).toMatchObject({
      batch: { createdCount: 4 },
      fileLedgerBalanceCents: '286355',
      accountBalanceCents: '186355',
    })
    const csv = {
      accountId: account,
      format: 'csv' as const,
      contentBase64: file('giro-windows-1252.csv').toString('base64'),
      encoding: 'windows-1252' as const,
    }
    const refused = await h.run(imports.commit, { ...csv, id: ulid() }).catch((x: unknown) => x)
    expect(refused).toMatchObject({
      status: 400,
      code: 'IMPORT_ROWS_REFUSED',
      extra: { refused: [{ line: 5 }] },
    })
    const plan = await h.read(imports.preview, csv)
    expect(plan.rows.map((r) => [r.line, r.outcome])).toEqual([
      [2, 'new'],
      [3, 'new'],
      [4, 'new'],
      [5, 'refused'],
    ])
    expect(plan.rows[0]!.importedId).toMatch(/^fp:[0-9a-f]{32}$/)
    const mapping = {
      date: 'Buchungstag',
      payee: 'Beguenstigter/Zahlungspflichtiger',
      memo: 'Verwendungszweck',
      amount: 'Betrag',
      decimal: ',' as const,
      dateFormat: 'DD.MM.YYYY' as const,
    }
    const done = await h.run(imports.commit, {
      ...csv,
      id: ulid(),
      skipRefused: true,
      mapping,
      saveMapping: true,
    })
    expect(done.batch).toMatchObject({ createdCount: 3, refusedCount: 1 })
    expect(await h.read(imports.getMapping, { id: account })).toEqual({ accountId: account, mapping })
    expect((await h.read(imports.preview, csv)).counts).toMatchObject({ new: 0, duplicate: 3, refused: 1 })
    // A USD file into a EUR account is refused whole.
    const usd = await h
      .read(imports.preview, {
        accountId: account,
        format: 'ofx',
        content: file('checking-1.02.ofx').toString('utf8'),
      })
      .catch((x: unknown) => x)
    expect(usd).toMatchObject({ status: 400, code: 'IMPORT_CURRENCY_MISMATCH' })
    await expectBalancesExact(h)
  })

  it('keeps two identical rows of one file as two, by their occurrence', async () => {
    const { h, account } = await household()
    const csv = {
      accountId: account,
      format: 'csv' as const,
      contentBase64: file('us-debit-credit-bom.csv').toString('base64'),
    }
    const first = await h.run(imports.commit, { ...csv, id: ulid() })
    expect(first.batch.createdCount).toBe(3)
    expect((await h.run(imports.commit, { ...csv, id: ulid() })).batch.createdCount).toBe(0)
  })
})
