import { describe, expect, it } from 'vitest'
import { centsToDecimal, csvCell, transactionsCsv } from './transactions-csv.ts'

describe('the transactions CSV', () => {
  it('writes a formula-leading cell as text with a leading apostrophe', () => {
    expect(csvCell('=HYPERLINK("http://evil","x")')).toBe(`"'=HYPERLINK(""http://evil"",""x"")"`)
    expect(csvCell('+1+cmd|calc')).toBe("'+1+cmd|calc")
    expect(csvCell('-2+3')).toBe("'-2+3")
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)")
    expect(csvCell('\t=1')).toBe("'\t=1")
    expect(csvCell('\r=1')).toBe(`"'\r=1"`)
  })

  it('leaves plain text and plain numbers alone, and quotes commas, quotes and line breaks', () => {
    expect(csvCell('Bakery')).toBe('Bakery')
    expect(csvCell('-12.30')).toBe('-12.30')
    expect(csvCell('12')).toBe('12')
    expect(csvCell('a, b')).toBe('"a, b"')
    expect(csvCell('say "hi"')).toBe('"say ""hi"""')
    expect(csvCell('two\nlines')).toBe('"two\nlines"')
    expect(csvCell(' padded')).toBe('" padded"')
    expect(csvCell('')).toBe('')
  })

  it('writes amounts from cents without a float', () => {
    expect(centsToDecimal('-450')).toBe('-4.50')
    expect(centsToDecimal('5')).toBe('0.05')
    expect(centsToDecimal('-5')).toBe('-0.05')
    expect(centsToDecimal('900719925474099312')).toBe('9007199254740993.12')
  })

  it('writes a header and CRLF lines', () => {
    const csv = transactionsCsv([
      {
        date: '2026-11-03',
        account: 'Checking',
        payee: '=cmd',
        category: 'Groceries',
        memo: '',
        amountCents: '-450',
        currency: 'USD',
        status: 'cleared',
      },
    ])
    expect(csv).toBe(
      "Date,Account,Payee,Category,Memo,Amount,Currency,Status\r\n2026-11-03,Checking,'=cmd,Groceries,,-4.50,USD,cleared\r\n",
    )
  })
})
