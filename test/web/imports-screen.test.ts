import { describe, expect, it } from 'vitest'
import { chromiumPath } from '../src/browser.ts'
import { useTestServer } from '../src/index.ts'
import { signInToApp } from './app-sign-in.ts'
import { useWebBrowser } from './web-build.ts'

const server = useTestServer()
const browser = useWebBrowser()
const H = '/households/current'

/** A DKB-like export: two lines of account details and a blank line above the header, DD.MM.YY days. */
const CSV = [
  '"Kontonummer:";"DE00 1234 5678";',
  '"Zeitraum:";"01.10.25 - 31.10.25";',
  '',
  '"Buchungstag";"Empfänger";"Betrag (EUR)"',
  '"01.10.25";"Bäckerei";"-3,50"',
  '"02.10.25";"Supermarkt";"-1.042,10"',
  '"15.10.25";"Arbeitgeber";"2.500,00"',
  '',
].join('\r\n')

describe.skipIf(!chromiumPath())('the bank-file import screen in Chromium', () => {
  it('imports a CSV with a mapping, keeps the mapping for the account, and undoes the import', {
    timeout: 300_000,
  }, async () => {
    const owner = await server.newOwner()
    const { api } = owner
    const account = (await api.post(`${H}/accounts`, { name: 'Giro', type: 'cash', currency: 'EUR' })).body
    expect(account.id).toBeDefined()
    const rows = async () =>
      (await api.get(`${H}/transactions?accountId=${account.id}&limit=100`)).body.items as {
        date: string
        amountCents: string
      }[]
    const until = async (check: () => Promise<boolean>) => {
      const end = Date.now() + 60_000
      while (!(await check())) {
        if (Date.now() > end) throw new Error('timed out')
        await new Promise((r) => setTimeout(r, 250))
      }
    }

    const page = await browser().newPage()
    try {
      await signInToApp(page, { url: server.url, token: api.token!, device: 'Import test' })
      await page.getByRole('link', { name: 'Import', exact: true }).click({ timeout: 120_000 })
      await page.getByRole('heading', { name: 'Import a bank file', level: 1 }).waitFor()
      await page.getByLabel('Account', { exact: true }).selectOption({ label: 'Giro' })
      // The file's bytes in Windows-1252, as a German bank writes them.
      await page.getByLabel('Bank file (OFX, QFX, CSV or camt.053)').setInputFiles({
        name: 'umsatz.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from(CSV, 'latin1'),
      })
      // The file is read before the format is told from its name.
      await page.getByText('Chosen: umsatz.csv').waitFor()
      expect(await page.getByLabel('Format', { exact: true }).inputValue()).toBe('csv')
      await page.getByLabel('Date column').fill('Buchungstag')
      await page.getByLabel('Amount column').fill('Betrag (EUR)')
      await page.getByLabel('Payee column').fill('Empfänger')
      await page.getByLabel('Date format', { exact: true }).fill('DD.MM.YY')
      await page.getByLabel('Header line', { exact: true }).fill('4')
      await page.getByLabel('Delimiter', { exact: true }).selectOption({ label: 'Semicolon' })
      await page.getByLabel('Decimal separator', { exact: true }).selectOption({ label: 'Comma (1.234,56)' })
      await page.getByRole('button', { name: 'Preview' }).click()
      await page.getByText('3 new, 0 matched, 0 duplicate, 0 possible duplicates, 0 refused').waitFor()
      expect(await page.locator('tr[data-outcome="new"]').count()).toBe(3)
      await page.getByRole('button', { name: 'Import', exact: true }).click()
      await page.getByText('Imported 3 new rows').waitFor()

      // On the server once the device has pushed: the rows, and the account's mapping.
      await until(async () => (await rows()).length === 3)
      expect((await rows()).map((r) => [r.date, r.amountCents]).sort()).toEqual([
        ['2025-10-01', '-350'],
        ['2025-10-02', '-104210'],
        ['2025-10-15', '250000'],
      ])
      const saved = await api.get(`${H}/accounts/${account.id}/import-mapping`)
      expect(saved.status).toBe(200)
      expect(saved.body.mapping).toEqual({
        date: 'Buchungstag',
        amount: 'Betrag (EUR)',
        payee: 'Empfänger',
        dateFormat: 'DD.MM.YY',
        headerLine: 4,
        delimiter: ';',
        decimal: ',',
      })

      // The import list undoes the batch; the rows leave the server too.
      await page.getByRole('button', { name: 'Undo import' }).click()
      await page.getByRole('cell', { name: 'Undone' }).waitFor()
      await until(async () => (await rows()).length === 0)

      // The next file for the account starts from its saved mapping.
      await page.reload()
      await page.getByRole('heading', { name: 'Import a bank file', level: 1 }).waitFor({ timeout: 120_000 })
      await page.getByLabel('Account', { exact: true }).selectOption({ label: 'Giro' })
      await page.getByLabel('Format', { exact: true }).selectOption({ label: 'CSV' })
      await until(
        async () => (await page.getByLabel('Date format', { exact: true }).inputValue()) === 'DD.MM.YY',
      )
      expect(await page.getByLabel('Header line', { exact: true }).inputValue()).toBe('4')
    } finally {
      await page.close()
    }
  })
})
