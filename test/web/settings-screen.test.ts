/**
 * The settings screens in Chromium, through the real server: the household's name saved on the
 * device and its currency refused in words once it has transactions; an API key created with
 * scopes, its secret shown once and working, then revoked and refused; a webhook added (its
 * secret shown once signs what the receiver gets), sent a test, its delivery retried from the
 * log, its secret rotated, edited, paused and deleted; the transactions exported as CSV with
 * formula-leading cells neutralised. A member whose sign-in lacks a scope reads words.
 */
import { readFileSync } from 'node:fs'
import { SCOPES, type Scope } from '@hearth/engine'
import type { Page } from 'playwright-core'
import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import { startReceiver } from '../http/webhook-receiver.ts'
import { chromiumPath } from '../src/browser.ts'
import { apiClient } from '../src/http-fixture.ts'
import { useTestServer } from '../src/index.ts'
import { joinWithInvitation, signInToApp } from './app-sign-in.ts'
import { useWebBrowser } from './web-build.ts'

const server = useTestServer()
const browser = useWebBrowser()

/** Opens a settings page from the sidebar's Settings and the settings' own links. */
async function openSettings(page: Page, link: string): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Settings', exact: true })
    .click({ timeout: 120_000 })
  // The sidebar is there before the replica opens (its first sync may take a while on a loaded
  // machine); the screen shows once it is open.
  await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor({ timeout: 120_000 })
  await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: link }).click()
}

describe.skipIf(!chromiumPath())('the settings screens in Chromium', () => {
  it('manage the household, API keys, webhooks and a CSV export', { timeout: 300_000 }, async () => {
    const owner = await server.newOwner()
    const { api } = owner
    const h = `/households/${owner.householdId}`
    const account = await api.post(`${h}/accounts`, {
      name: 'Checking',
      type: 'cash',
      openingBalanceCents: '100000',
      openingBalanceDate: '2026-11-01',
    })
    expect(account.status).toBe(201)
    for (const [payeeName, memo, amountCents] of [
      ['=HYPERLINK("http://evil.example","click")', '+cmd|calc', '-450'],
      ['Bakery', '@SUM(A1)', '-1205'],
    ] as const) {
      const row = { accountId: account.body.id, date: '2026-11-03', payeeName, memo, amountCents }
      expect((await api.post(`${h}/transactions`, row)).status).toBe(201)
    }
    const household = (await api.get(h)).body as { baseCurrency: string }
    const receiver = await startReceiver()

    const context = await browser().newContext({
      viewport: { width: 1280, height: 1000 },
      acceptDownloads: true,
    })
    const page = await context.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (error) => pageErrors.push(error.message))
    page.on('dialog', (dialog) => void dialog.accept())
    try {
      await signInToApp(page, { url: server.url, token: api.token!, device: 'Settings' })

      // Household: renamed on the device and synced; the currency is refused in words.
      await openSettings(page, 'Household')
      const form = page.getByRole('form', { name: 'Your household' })
      await form.getByLabel('Household name').fill('The Settings Test')
      await form.getByRole('button', { name: 'Save' }).click()
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor()
      await expect
        .poll(async () => (await api.get(h)).body.name, { timeout: 60_000 })
        .toBe('The Settings Test')
      const other = household.baseCurrency === 'EUR' ? 'GBP' : 'EUR'
      await form.getByLabel('Currency').selectOption(other)
      await form.getByRole('button', { name: 'Save' }).click()
      await form
        .getByRole('alert')
        .filter({ hasText: `stays ${household.baseCurrency}` })
        .waitFor()
      expect((await api.get(h)).body.baseCurrency).toBe(household.baseCurrency)

      // API keys: created with every read scope, shown once, working; then revoked.
      await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'API keys' }).click()
      const keyForm = page.getByRole('form', { name: 'Create an API key' })
      await keyForm.getByLabel('Key name').fill('Spreadsheet')
      await keyForm.getByRole('button', { name: 'Every read scope' }).click()
      await keyForm.getByRole('button', { name: 'Create key' }).click()
      const secret = (await keyForm.locator('[data-secret]').textContent({ timeout: 30_000 }))!
      expect(secret).toMatch(/^hth_/)
      const keyApi = apiClient(server.url, secret)
      expect((await keyApi.get(`${h}/accounts`)).status).toBe(200)
      expect((await keyApi.post(`${h}/payees`, { name: 'Not allowed' })).status).toBe(403)
      const listed = (await api.get('/users/me/api-keys')).body.items as { name: string; scopes: string[] }[]
      expect(listed.find((k) => k.name === 'Spreadsheet')!.scopes).toEqual(
        SCOPES.filter((s: Scope) => s.startsWith('read:')),
      )
      const keyRow = page.locator('[data-table="api-keys"] tr[data-key="Spreadsheet"]')
      await keyRow.getByRole('button', { name: 'Revoke Spreadsheet' }).click()
      await expect.poll(() => keyRow.getAttribute('data-state'), { timeout: 30_000 }).toBe('revoked')
      expect((await keyApi.get(`${h}/accounts`)).status).toBe(401)
      // Shown once: back on the page, no secret is on it.
      await page.reload()
      await page.locator('[data-table="api-keys"]').waitFor({ timeout: 60_000 })
      expect(await page.locator('[data-secret]').count()).toBe(0)

      // Webhooks: added with every event; the secret shown signs what the receiver gets.
      await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Webhooks' }).click()
      const hookForm = page.getByRole('form', { name: 'Add a webhook' })
      await hookForm.getByLabel('Receiver URL').fill(receiver.url)
      await hookForm.getByRole('button', { name: 'Add webhook' }).click()
      const firstSecret = (await page.locator('[data-secret]').textContent({ timeout: 30_000 }))!
      expect(firstSecret).toMatch(/^whsec_/)
      const card = page.locator(`[data-webhook="${receiver.url}"]`)
      await card.getByRole('button', { name: 'Send a test' }).click()
      const tests = () => receiver.received.filter((r) => r.payload.type === 'webhook.test')
      await expect.poll(() => tests().length, { timeout: 60_000 }).toBe(1)
      receiver.verifyAll(firstSecret)

      // The delivery log shows it delivered; a retry sends it again with the same id.
      await card.getByRole('button', { name: 'Show deliveries' }).click()
      const delivered = card.locator('[data-table="deliveries"] tr[data-event-type="webhook.test"]')
      await expect
        .poll(
          async () => {
            await card.getByRole('button', { name: 'Refresh' }).click()
            return delivered.getAttribute('data-status', { timeout: 5_000 }).catch(() => null)
          },
          { timeout: 60_000 },
        )
        .toBe('succeeded')
      await delivered.getByRole('button', { name: 'Retry the webhook.test delivery' }).click()
      await card.getByRole('status').filter({ hasText: 'queued again' }).waitFor()
      await expect.poll(() => tests().length, { timeout: 60_000 }).toBe(2)
      expect(tests()[1]!.id).toBe(tests()[0]!.id)

      // Rotated: a new secret, shown once, which signs the next test.
      await card.getByRole('button', { name: 'Rotate secret' }).click()
      await card.locator('[data-secret]').waitFor({ timeout: 30_000 })
      const rotated = (await card.locator('[data-secret]').textContent())!
      expect(rotated).toMatch(/^whsec_/)
      expect(rotated).not.toBe(firstSecret)
      await card.getByRole('button', { name: 'Send a test' }).click()
      await expect.poll(() => tests().length, { timeout: 60_000 }).toBe(3)
      const third = tests()[2]!
      new Webhook(rotated).verify(third.body, {
        'webhook-id': third.id,
        'webhook-timestamp': third.timestamp,
        'webhook-signature': third.signature,
      })

      // Edited to one event type, paused, then deleted: REST agrees at each step.
      const subs = async () =>
        (await api.get(`${h}/webhooks/subscriptions`)).body.items as {
          url: string
          eventTypes: string[]
          status: string
        }[]
      await card.getByRole('button', { name: 'Edit' }).click()
      const editForm = card.getByRole('form', { name: `Change the webhook to ${receiver.url}` })
      await editForm.getByLabel('Every event, present and future').uncheck()
      await editForm.getByLabel('Events').selectOption(['transaction.created'])
      await editForm.getByRole('button', { name: 'Save changes' }).click()
      await expect
        .poll(async () => (await subs())[0]?.eventTypes, { timeout: 30_000 })
        .toEqual(['transaction.created'])
      await card.getByLabel('Status').selectOption('paused')
      await expect.poll(async () => (await subs())[0]?.status, { timeout: 30_000 }).toBe('paused')
      await card.getByRole('button', { name: 'Delete' }).click()
      await expect.poll(async () => (await subs()).length, { timeout: 30_000 }).toBe(0)
      await page.getByText('The household has no webhooks yet.').waitFor()

      // Export: every transaction, formula-leading cells as text.
      await page
        .getByRole('navigation', { name: 'Settings' })
        .getByRole('link', { name: 'Export and backup' })
        .click()
      const [download] = await Promise.all([
        page.waitForEvent('download', { timeout: 60_000 }),
        page.getByRole('button', { name: 'Download CSV' }).click(),
      ])
      expect(download.suggestedFilename()).toMatch(/^hearth-transactions-\d{4}-\d{2}-\d{2}\.csv$/)
      const csv = readFileSync((await download.path())!, 'utf8')
      const lines = csv.split('\r\n').filter(Boolean)
      expect(lines[0]).toBe('Date,Account,Payee,Category,Memo,Amount,Currency,Status')
      const rest = (await api.get(`${h}/transactions?limit=100`)).body.items as unknown[]
      expect(lines.length - 1).toBe(rest.length)
      expect(csv).toContain(`"'=HYPERLINK(""http://evil.example"",""click"")"`)
      expect(csv).toContain("'+cmd|calc")
      expect(csv).toContain(`Bakery,,'@SUM(A1),-12.05,${household.baseCurrency}`)
      expect(csv).not.toMatch(/(^|,)[=+@]/m)
      await page
        .getByRole('status')
        .filter({ hasText: `Exported ${rest.length} transactions.` })
        .waitFor()
      await page.getByText('npm run hearth -- backup').waitFor()
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('says in words what a member may not see or change', { timeout: 240_000 }, async () => {
    const owner = await server.newOwner()
    const h = `/households/${owner.householdId}`
    const invitation = await owner.api.post(`${h}/invitations`, {
      role: 'member',
      scopes: SCOPES.filter((s: Scope) => s !== 'read:webhooks' && s !== 'read:transactions'),
    })
    expect(invitation.status).toBe(201)
    const context = await browser().newContext({ viewport: { width: 1280, height: 900 } })
    const page = await context.newPage()
    try {
      await joinWithInvitation(page, {
        url: server.url,
        code: invitation.body.code,
        name: 'Settings Member',
        device: 'Member',
      })
      await openSettings(page, 'Webhooks')
      const words = page.locator('[data-problem="scope"]')
      await words.waitFor({ timeout: 60_000 })
      expect(await words.getAttribute('data-scope')).toBe('read:webhooks')
      expect(await words.textContent()).toContain('You can’t see webhooks with this sign-in.')

      await page
        .getByRole('navigation', { name: 'Settings' })
        .getByRole('link', { name: 'Export and backup' })
        .click()
      await page
        .locator('[data-problem="scope"][data-scope="read:transactions"]')
        .waitFor({ timeout: 60_000 })
      // Where backups come from is said all the same.
      await page.getByText('npm run hearth -- backup').waitFor()

      // A member may not change the household: the owner-only rule, in words.
      await page
        .getByRole('navigation', { name: 'Settings' })
        .getByRole('link', { name: 'Household' })
        .click()
      const form = page.getByRole('form', { name: 'Your household' })
      await form.getByLabel('Household name').fill('Not mine to rename')
      await form.getByRole('button', { name: 'Save' }).click()
      await form.getByRole('alert').waitFor({ timeout: 30_000 })
      expect(await form.getByRole('alert').textContent()).toMatch(/owner/i)
    } finally {
      await context.close()
    }
  })
})
