import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { readStatement } from './index.ts'
import { parseCents } from './statement.ts'

const fixture = (name: string) =>
  readFileSync(new URL(`../../../../../test/fixtures/bank-files/${name}`, import.meta.url))
const text = (name: string) => fixture(name).toString('utf8')
const base64 = (name: string) => fixture(name).toString('base64')

describe('amounts', () => {
  it('reads exact cents in the ways banks write them, and refuses what is not cents', () => {
    expect(parseCents('-1.234,56', ',')).toBe(-123456)
    expect(parseCents('1,234.56')).toBe(123456)
    expect(parseCents('(12.00)')).toBe(-1200)
    expect(parseCents('12-')).toBe(-1200)
    expect(parseCents('0.1')).toBe(10)
    expect(parseCents('19.999')).toBeNull()
    expect(parseCents('12,34,5')).toBeNull()
    expect(parseCents('abc')).toBeNull()
    expect(parseCents('')).toBeNull()
  })
})

describe('bank files', () => {
  it("names the file's bank account as the account records it: BANKID/ACCTID, folded", () => {
    const xml = `<?xml version="1.0"?><?OFX OFXHEADER="200" VERSION="220"?><OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS>
      <CURDEF>EUR</CURDEF><BANKACCTFROM><BANKID>37040044</BANKID><ACCTID>de 0532 013000</ACCTID><ACCTTYPE>CHECKING</ACCTTYPE></BANKACCTFROM>
      <BANKTRANLIST><STMTTRN><TRNTYPE>DEBIT</TRNTYPE><DTPOSTED>20250301</DTPOSTED><TRNAMT>-1.00</TRNAMT><FITID>1</FITID><NAME>X</NAME></STMTTRN></BANKTRANLIST>
      </STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>`
    expect(readStatement({ format: 'ofx', content: xml }).bankAccountId).toBe('37040044/DE0532013000')
    const noBank = xml.replace('<BANKID>37040044</BANKID>', '')
    expect(readStatement({ format: 'ofx', content: noBank }).bankAccountId).toBe('DE0532013000')
  })

  it('reads OFX 1.02 SGML with unclosed tags: FITIDs, payees, entities and the ledger balance', () => {
    const s = readStatement({ format: 'ofx', content: text('checking-1.02.ofx') })
    expect(s).toMatchObject({
      currency: 'USD',
      bankAccountId: '121000248/000123456789',
      ledgerBalance: { amountCents: 242316, date: '2025-03-15' },
    })
    expect(s.rows.map((r) => [r.date, r.amountCents, r.payee, r.externalId])).toEqual([
      ['2025-03-03', -475, 'STARBUCKS #1234 SEATTLE WA', '2025030301'],
      ['2025-03-05', -5210, 'SHELL OIL 57442', '2025030502'],
      ['2025-03-10', 250000, 'ACME CORP PAYROLL', '2025031003'],
      ['2025-03-12', -1999, 'AMZN Mktp US*2K4LM & Co', '2025031204'],
    ])
    expect(s.rows[0]!.line).toBe(39)
  })

  it('reads a QFX (OFX 2.2 XML) credit-card statement', () => {
    const s = readStatement({ format: 'qfx', content: text('card-2.2.qfx') })
    expect(s.currency).toBe('USD')
    // A card has no BANKID: its ACCTID alone names it.
    expect(s.bankAccountId).toBe('4111111111111111')
    expect(s.ledgerBalance?.amountCents).toBe(-5660)
    expect(s.rows.map((r) => [r.date, r.amountCents, r.payee, r.memo])).toEqual([
      ['2025-03-02', -1240, 'SQ *BLUE BOTTLE COFFEE', null],
      ['2025-03-04', -3100, 'TST* JOES DINER 0042', 'SAN FRANCISCO CA'],
      ['2025-03-15', 10000, 'PAYMENT THANK YOU', null],
    ])
  })

  it('reads camt.053 with a batch booking split into its transactions', () => {
    const s = readStatement({ format: 'camt053', content: text('statement.camt053.xml') })
    expect(s).toMatchObject({
      currency: 'EUR',
      bankAccountId: 'DE89370400440532013000',
      ledgerBalance: { amountCents: 286355 },
    })
    expect(s.rows.map((r) => [r.date, r.amountCents, r.payee, r.memo, r.externalId])).toEqual([
      ['2025-03-03', -4590, 'REWE Markt GmbH', 'Einkauf Filiale 4411', 'E-0001'],
      ['2025-03-25', 210000, 'Muster & Sohn AG', 'Gehalt März 2025', 'E-0002'],
      ['2025-03-28', -15000, 'Stadtwerke Musterstadt', 'Strom Abschlag 03/2025', 'E-0003:1'],
      ['2025-03-28', -4055, 'Telekom Deutschland GmbH', 'Rechnung 03/2025', 'E-0003:2'],
    ])
  })

  it('reads a Windows-1252 CSV with semicolons, DD.MM.YYYY and a decimal comma, refusing a bad row by line', () => {
    const s = readStatement({
      format: 'csv',
      contentBase64: base64('giro-windows-1252.csv'),
      encoding: 'windows-1252',
    })
    expect(s.rows.map((r) => [r.line, r.date, r.amountCents, r.payee])).toEqual([
      [2, '2025-03-03', -4590, 'REWE Markt'],
      [3, '2025-03-05', -1250, 'Café Müller'],
      [4, '2025-03-25', 210000, 'Arbeitgeber GmbH'],
    ])
    expect(s.refused).toEqual([{ line: 5, reason: expect.stringContaining('DD.MM.YYYY') }])
    // The same bytes guessed: not valid UTF-8, so read as Windows-1252.
    expect(
      readStatement({ format: 'csv', contentBase64: base64('giro-windows-1252.csv') }).rows[1]!.payee,
    ).toBe('Café Müller')
  })

  it('reads a UTF-8 CSV with a BOM and debit and credit columns, and takes a mapping and an invert flag', () => {
    const s = readStatement({ format: 'csv', contentBase64: base64('us-debit-credit-bom.csv') })
    expect(s.rows.map((r) => [r.date, r.amountCents, r.payee])).toEqual([
      ['2025-03-14', -475, 'STARBUCKS #1234, SEATTLE'],
      ['2025-03-15', 250000, 'ACME PAYROLL'],
      ['2025-03-15', 250000, 'ACME PAYROLL'],
    ])
    const csv = 'When\tWho\tHow much\n2025-03-01\tShop\t12.00\n'
    const mapped = readStatement({
      format: 'csv',
      content: csv,
      mapping: { date: 'When', payee: 'Who', amount: 'How much', invert: true },
    })
    expect(mapped.rows.map((r) => r.amountCents)).toEqual([-1200])
  })

  it('refuses what is not a readable bank file with a reason, never a crash', () => {
    const code = (file: Parameters<typeof readStatement>[0]) => {
      try {
        readStatement(file)
        return 'read'
      } catch (e) {
        return (e as { code?: string }).code ?? String(e)
      }
    }
    expect(code({ format: 'ofx', content: '' })).toBe('IMPORT_FILE_EMPTY')
    expect(code({ format: 'ofx', content: text('checking-1.02.ofx').slice(0, 600) })).toBe(
      'IMPORT_FILE_TRUNCATED',
    )
    expect(
      code({ format: 'csv', contentBase64: Buffer.from([0x50, 0x4b, 3, 4, 0, 0, 9]).toString('base64') }),
    ).toBe('IMPORT_FILE_BINARY')
    const laughs = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><Document>&lol2;</Document>`
    expect(code({ format: 'camt053', content: laughs })).toBe('IMPORT_FILE_UNSAFE')
    const xxe = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><OFX>&e;</OFX>`
    expect(code({ format: 'ofx', content: xxe })).toBe('IMPORT_FILE_UNSAFE')
    expect(
      code({ format: 'csv', content: 'Date,Amount\n2025-01-01,1.00\n', mapping: { payee: 'Name' } }),
    ).toBe('IMPORT_COLUMN_MISSING')
    expect(code({ format: 'csv', content: 'Date,Amount\n01/02/2025,1.00\n' })).toBe(
      'IMPORT_DATE_FORMAT_AMBIGUOUS',
    )
    expect(code({ format: 'camt053', content: '<Document><BkToCstmrStmt><Stmt>' })).toBe(
      'IMPORT_FILE_TRUNCATED',
    )
    expect(code({ format: 'ofx', content: 'hello world' })).toBe('IMPORT_FILE_UNREADABLE')
  })
})
