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

describe('bank files as real banks write them', () => {
  const code = (file: Parameters<typeof readStatement>[0]) => {
    try {
      readStatement(file)
      return 'read'
    } catch (e) {
      return (e as { code?: string }).code ?? String(e)
    }
  }
  const extraRow = `<STMTTRN>
<TRNTYPE>DEBIT
<DTPOSTED>20240229120000[-3:BRT]
<TRNAMT>-9.99
<FITID>20240229000
<NAME>Tarifa Pacote
</STMTTRN>
</BANKTRANLIST>`

  it('reads every statement of an OFX block: an empty one, then the one with the rows', () => {
    const s = readStatement({ format: 'ofx', content: text('two-statements-empty-first.ofx') })
    expect(s).toMatchObject({
      currency: 'BRL',
      bankAccountId: '0001/00012345-6',
      ledgerBalance: { amountCents: 268193, date: '2024-03-31' },
      refused: [],
    })
    expect(s.rows.map((r) => [r.line, r.date, r.amountCents, r.externalId])).toEqual([
      [57, '2024-03-01', -3590, '20240301001'],
      [65, '2024-03-05', -12000, '20240305002'],
      [73, '2024-03-05', -12000, '20240305003'],
      [81, '2024-03-10', 450000, '20240310004'],
      [89, '2024-03-20', -150000, '20240320005'],
      [97, '2024-03-28', -4217, '20240328006'],
    ])
  })

  it('reads rows in both statements, in file order, and names two accounts as two', () => {
    const both = text('two-statements-empty-first.ofx').replace('</BANKTRANLIST>', extraRow)
    const s = readStatement({ format: 'ofx', content: both })
    expect(s.rows.map((r) => [r.line, r.externalId])).toEqual([
      [40, '20240229000'],
      [64, '20240301001'],
      [72, '20240305002'],
      [80, '20240305003'],
      [88, '20240310004'],
      [96, '20240320005'],
      [104, '20240328006'],
    ])
    expect(s.bankAccountId).toBe('0001/00012345-6')
    // The last statement with rows states the closing balance.
    expect(s.ledgerBalance?.amountCents).toBe(268193)
    // Two accounts with rows: refused as any multi-account file.
    const other = both.replace('<ACCTID>00012345-6', '<ACCTID>00099999-9')
    expect(code({ format: 'ofx', content: other })).toBe('IMPORT_MULTIPLE_ACCOUNTS')
    // An empty statement of another account leaves the rows one account.
    const emptyOther = text('two-statements-empty-first.ofx').replace(
      '<ACCTID>00012345-6',
      '<ACCTID>00099999-9',
    )
    expect(readStatement({ format: 'ofx', content: emptyOther }).bankAccountId).toBe('0001/00012345-6')
  })

  it('reads two statements in one STMTTRNRS of OFX 2.x XML, and two STMTTRNRS blocks', () => {
    const stmt = (id: string, fitid: string) =>
      `<STMTRS><CURDEF>EUR</CURDEF><BANKACCTFROM><BANKID>1</BANKID><ACCTID>${id}</ACCTID><ACCTTYPE>CHECKING</ACCTTYPE></BANKACCTFROM>
      <BANKTRANLIST><STMTTRN><TRNTYPE>DEBIT</TRNTYPE><DTPOSTED>20250301</DTPOSTED><TRNAMT>-1.00</TRNAMT><FITID>${fitid}</FITID><NAME>X</NAME></STMTTRN></BANKTRANLIST></STMTRS>`
    const xml = (inner: string) =>
      `<?xml version="1.0"?><?OFX OFXHEADER="200" VERSION="220"?><OFX><BANKMSGSRSV1>${inner}</BANKMSGSRSV1></OFX>`
    const one = xml(`<STMTTRNRS>${stmt('A1', 'f1')}${stmt('A1', 'f2')}</STMTTRNRS>`)
    expect(readStatement({ format: 'ofx', content: one }).rows.map((r) => r.externalId)).toEqual(['f1', 'f2'])
    const two = xml(`<STMTTRNRS>${stmt('A1', 'f1')}</STMTTRNRS><STMTTRNRS>${stmt('A1', 'f2')}</STMTTRNRS>`)
    expect(readStatement({ format: 'ofx', content: two }).rows.map((r) => r.externalId)).toEqual(['f1', 'f2'])
    const mixed = xml(`<STMTTRNRS>${stmt('A1', 'f1')}${stmt('B2', 'f2')}</STMTTRNRS>`)
    expect(code({ format: 'ofx', content: mixed })).toBe('IMPORT_MULTIPLE_ACCOUNTS')
  })

  it('reads a CSV with an 8-line preamble, DD.MM.YY told from the file, by true line numbers', () => {
    const s = readStatement({ format: 'csv', content: text('dkb-preamble-ddmmyy.csv') })
    expect(s.rows.map((r) => [r.line, r.date, r.amountCents, r.payee, r.memo])).toEqual([
      [10, '2023-03-02', -2345, 'Beispiel Markt GmbH', 'Einkauf 0815'],
      [11, '2023-03-15', 234500, 'Musterfirma AG', 'Lohn März'],
      [15, '2023-03-28', -85000, 'Vermieterin Beispiel', 'Miete'],
    ])
    // Blank lines (12, 13, 16) are counted, never refused.
    expect(s.refused).toEqual([
      { line: 14, reason: '"31.02.23" is not a day as DD.MM.YY.' },
      { line: 17, reason: 'The amount is missing or not an amount in cents.' },
    ])
    // The same with everything said: the header line and the pattern.
    const said = readStatement({
      format: 'csv',
      content: text('dkb-preamble-ddmmyy.csv'),
      mapping: {
        headerLine: 9,
        dateFormat: 'DD.MM.YY',
        date: 'Wertstellung',
        amount: 'Betrag (EUR)',
        delimiter: ';',
      },
    })
    expect(said.rows.map((r) => [r.line, r.date, r.amountCents])).toEqual(
      s.rows.map((r) => [r.line, r.date, r.amountCents]),
    )
    // The header found by the mapped names alone.
    const named = readStatement({
      format: 'csv',
      content: text('dkb-preamble-ddmmyy.csv'),
      mapping: { date: 'Buchungstag', amount: 'Betrag (EUR)' },
    })
    expect(named.rows).toHaveLength(3)
    // A header line that does not name the columns says so; a blank one or past the end too.
    expect(
      code({ format: 'csv', content: text('dkb-preamble-ddmmyy.csv'), mapping: { headerLine: 1 } }),
    ).toBe('IMPORT_COLUMN_MISSING')
    expect(
      code({ format: 'csv', content: text('dkb-preamble-ddmmyy.csv'), mapping: { headerLine: 8 } }),
    ).toBe('IMPORT_COLUMN_MISSING')
    expect(
      code({ format: 'csv', content: text('dkb-preamble-ddmmyy.csv'), mapping: { headerLine: 99 } }),
    ).toBe('IMPORT_COLUMN_MISSING')
  })

  it('reads MM/DD/YY told from the file and said in the mapping, refusing by true line', () => {
    const s = readStatement({ format: 'csv', content: text('us-mmddyy.csv') })
    expect(s.rows.map((r) => [r.line, r.date, r.amountCents])).toEqual([
      [2, '2024-03-02', -625],
      [3, '2024-03-14', -4110],
      [5, '2024-03-15', 180000],
    ])
    expect(s.refused).toEqual([{ line: 6, reason: '"13/40/24" is not a day as MM/DD/YY.' }])
    const said = readStatement({
      format: 'csv',
      content: text('us-mmddyy.csv'),
      mapping: { dateFormat: 'MM/DD/YY' },
    })
    expect(said.rows.map((r) => r.date)).toEqual(s.rows.map((r) => r.date))
    // Said the other way round, the pattern given wins: only 03/02/24 is a day as DD/MM/YY.
    const other = readStatement({
      format: 'csv',
      content: text('us-mmddyy.csv'),
      mapping: { dateFormat: 'DD/MM/YY' },
    })
    expect(other.rows.map((r) => [r.line, r.date])).toEqual([[2, '2024-02-03']])
    expect(other.refused.map((r) => r.line)).toEqual([3, 5, 6])
  })

  it('tells two-digit years by a fixed pivot, and refuses what it cannot tell rather than guess YYYY-MM-DD', () => {
    const dotted = readStatement({ format: 'csv', content: 'Datum;Betrag\n01.02.69;1,00\n31.12.68;2,00\n' })
    expect(dotted.rows.map((r) => r.date)).toEqual(['1969-02-01', '2068-12-31'])
    // Every day and month at most 12: month- or day-first cannot be told.
    expect(code({ format: 'csv', content: 'Date,Amount\n01/02/24,1.00\n03/04/24,1.00\n' })).toBe(
      'IMPORT_DATE_FORMAT_AMBIGUOUS',
    )
    expect(
      readStatement({
        format: 'csv',
        content: 'Date,Amount\n01/02/24,1.00\n03/04/24,1.00\n',
        mapping: { dateFormat: 'DD/MM/YY' },
      }).rows.map((r) => r.date),
    ).toEqual(['2024-02-01', '2024-04-03'])
    // No pattern reads these: said as such, not every row refused as YYYY-MM-DD.
    expect(code({ format: 'csv', content: 'Date,Amount\nMar 1 2024,1.00\n' })).toBe(
      'IMPORT_DATE_FORMAT_UNKNOWN',
    )
    // Other patterns of the grammar, given.
    expect(
      readStatement({
        format: 'csv',
        content: 'Date,Amount\n20240301,1.00\n',
        mapping: { dateFormat: 'YYYYMMDD' },
      }).rows[0]!.date,
    ).toBe('2024-03-01')
    expect(
      readStatement({
        format: 'csv',
        content: 'Date,Amount\n24-3-1,1.00\n',
        mapping: { dateFormat: 'YY-MM-DD' },
      }).rows[0]!.date,
    ).toBe('2024-03-01')
    // YYYYMMDD is told from the file too.
    expect(readStatement({ format: 'csv', content: 'Date,Amount\n20240301,1.00\n' }).rows[0]!.date).toBe(
      '2024-03-01',
    )
  })

  it('counts blank lines and line breaks inside quotes before a refused row', () => {
    const csv =
      'Date,Payee,Amount\n\n2024-03-01,"Two\nlines",1.00\n\n\n2024-13-01,Bad,1.00\n   \n2024-03-02,,x\n'
    const s = readStatement({ format: 'csv', content: csv })
    expect(s.rows.map((r) => r.line)).toEqual([3])
    expect(s.refused).toEqual([
      { line: 7, reason: '"2024-13-01" is not a day as YYYY-MM-DD.' },
      { line: 9, reason: 'The amount is missing or not an amount in cents.' },
    ])
  })
})
