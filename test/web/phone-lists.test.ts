/**
 * The register and the budget on a phone (issue 41): at 390×844 with touch (Chromium's mobile
 * emulation) each reads as a list, one card a transaction or category with its essential fields in
 * sight (date, payee, category, amount; category, assigned, activity, available), and neither the
 * page nor the table scrolls sideways. The markup stays a table, so Chromium's accessibility tree
 * still has its rows, cells and column headers there, axe finds no serious or critical violation,
 * and at a desktop width both are laid out as tables with their headers shown. The figures are
 * compared with the REST API's.
 */
import type { BrowserContext, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { centsToInput, formatCents } from '../../packages/web/src/format.ts'
import { expectOk } from '../src/answers.ts'
import { chromiumPath } from '../src/browser.ts'
import { type TestMember, useTestServer } from '../src/index.ts'
import { signInToApp } from './app-sign-in.ts'
import { axeViolations, go, overflowing, settled } from './screen-checks.ts'
import { useWebBrowser } from './web-build.ts'

const server = useTestServer()
const browser = useWebBrowser()

const PHONE = { width: 390, height: 844 }
const MONTH = new Date().toISOString().slice(0, 7)

interface Txn {
  id: string
  date: string
  payeeId: string | null
  categoryId: string | null
  amountCents: string
  memo: string | null
}
interface BudgetCategory {
  id: string
  name: string
  assignedCents: string
  activityCents: string
  availableCents: string
}

/** A household with a few rows of every shape: long payee, memo, uncategorized, income; money assigned. */
async function seed(owner: TestMember) {
  const { api } = owner
  const h = `/households/${owner.householdId}`
  await expectOk(api.post(`${h}/starter-pack`, {}))
  const categories = (await expectOk(api.get(`${h}/categories`))).items as { id: string; name: string }[]
  const id = (name: string) => categories.find((c) => c.name === name)!.id
  const checking = await expectOk(
    api.post(`${h}/accounts`, {
      name: 'Everyday checking account',
      type: 'cash',
      openingBalanceCents: '1234567',
      openingBalanceDate: `${MONTH}-01`,
    }),
  )
  const rows = [
    { payeeName: 'Green Grocer', amountCents: '-8450', categoryId: id('Groceries'), memo: 'weekly shop' },
    {
      payeeName: 'The Extraordinarily Long Named Hardware and Garden Supplies Company',
      amountCents: '-123456',
      categoryId: id('Groceries'),
      memo: 'a memo long enough to wrap on a narrow screen, and then some more words',
    },
    { payeeName: 'Bakery', amountCents: '-1205' },
    { payeeName: 'Employer', amountCents: '987654' },
  ]
  for (const row of rows)
    await expectOk(api.post(`${h}/transactions`, { accountId: checking.id, date: `${MONTH}-02`, ...row }))
  await expectOk(
    api.patch(`${h}/budgets/${MONTH}/categories/${id('Groceries')}`, { assignedCents: '250000' }),
  )
  const transactions = (await expectOk(api.get(`${h}/transactions?accountId=${checking.id}&limit=100`)))
    .items as Txn[]
  const payees = new Map(
    ((await expectOk(api.get(`${h}/payees`))).items as { id: string; name: string }[]).map((p) => [
      p.id,
      p.name,
    ]),
  )
  const categoryName = new Map(categories.map((c) => [c.id, c.name]))
  const budget = (await expectOk(api.get(`${h}/budgets/${MONTH}`))) as {
    groups: { isIncome: boolean; categories: BudgetCategory[] }[]
  }
  return { checkingId: checking.id as string, transactions, payees, categoryName, budget }
}

type Seeded = Awaited<ReturnType<typeof seed>>

async function signedIn(context: BrowserContext, owner: TestMember, device: string): Promise<Page> {
  const page = await context.newPage()
  await signInToApp(page, { url: server.url, token: owner.api.token!, device })
  await page.locator('main h1').first().waitFor({ timeout: 120_000 })
  return page
}

/** Where each named part of every row matching `rows` is, and its text, with the row's own box. */
function layoutOf(page: Page, rows: string, parts: Record<string, string>) {
  return page.locator(rows).evaluateAll(
    (elements, parts) =>
      elements.map((row) => {
        const box = (e: Element) => {
          const r = e.getBoundingClientRect()
          return {
            left: r.left,
            right: r.right,
            top: r.top,
            bottom: r.bottom,
            width: r.width,
            height: r.height,
          }
        }
        const found: Record<
          string,
          { text: string; value: string | null; box: ReturnType<typeof box> } | null
        > = {}
        for (const [name, selector] of Object.entries(parts)) {
          const e = row.querySelector(selector)
          found[name] = e && {
            text: (e.textContent ?? '').trim(),
            value: e instanceof HTMLInputElement ? e.value : e.getAttribute('datetime'),
            box: box(e),
          }
        }
        return {
          id: row.getAttribute('data-id') ?? row.getAttribute('data-category'),
          display: getComputedStyle(row).display,
          box: box(row),
          parts: found,
        }
      }),
    parts,
  )
}

/** Fails with the parts of a row that are hidden, outside their row or past the screen's edges. */
function expectInSight(rows: Awaited<ReturnType<typeof layoutOf>>, width: number): void {
  const problems: string[] = []
  for (const row of rows) {
    for (const [name, part] of Object.entries(row.parts)) {
      if (!part) problems.push(`${row.id}: no ${name}`)
      else if (part.box.width === 0 || part.box.height === 0) problems.push(`${row.id}: ${name} hidden`)
      else if (part.box.left < -1 || part.box.right > width + 1)
        problems.push(`${row.id}: ${name} at ${part.box.left}–${part.box.right} of ${width}px`)
      else if (
        part.box.left < row.box.left - 1 ||
        part.box.right > row.box.right + 1 ||
        part.box.top < row.box.top - 1 ||
        part.box.bottom > row.box.bottom + 1
      )
        problems.push(`${row.id}: ${name} outside its row`)
    }
  }
  expect(problems).toEqual([])
}

/** Whether the page or the table in `table` can be scrolled sideways, for a failure's message. */
async function sideways(page: Page, table: string): Promise<string[]> {
  const found: string[] = []
  const width = await page.evaluate(() => document.documentElement.scrollWidth)
  if (width > PHONE.width) found.push(`page: ${width}px (${await overflowing(page)})`)
  const inner = await page.locator(table).evaluate((t) => ({
    scroll: t.scrollWidth,
    client: t.clientWidth,
    right: t.getBoundingClientRect().right,
  }))
  if (inner.scroll > inner.client + 1) found.push(`${table}: scrolls ${inner.scroll}px in ${inner.client}px`)
  if (inner.right > PHONE.width + 1) found.push(`${table}: reaches ${inner.right}px`)
  return found
}

/** The roles and names Chromium's own accessibility tree gives `table` and what it holds, in order. */
async function accessibleRoles(page: Page, table: string): Promise<{ role: string; name: string }[]> {
  const cdp = await page.context().newCDPSession(page)
  try {
    const { result } = await cdp.send('Runtime.evaluate', {
      expression: `document.querySelector(${JSON.stringify(table)})`,
    })
    const { node } = await cdp.send('DOM.describeNode', { objectId: result.objectId! })
    const { nodes } = await cdp.send('Accessibility.getFullAXTree', {})
    const byId = new Map(nodes.map((n) => [n.nodeId, n]))
    const found: { role: string; name: string }[] = []
    const walk = (n: (typeof nodes)[number] | undefined) => {
      if (!n) return
      if (!n.ignored) found.push({ role: String(n.role?.value ?? ''), name: String(n.name?.value ?? '') })
      for (const child of n.childIds ?? []) walk(byId.get(child))
    }
    walk(nodes.find((n) => n.backendDOMNodeId === node.backendNodeId))
    return found
  } finally {
    await cdp.detach()
  }
}

async function checkRegister(page: Page, seeded: Seeded, width: number) {
  await go(page, `/accounts/${seeded.checkingId}`)
  await settled(page)
  await page
    .locator('tr.txn-row')
    .nth(seeded.transactions.length - 1)
    .waitFor({ timeout: 60_000 })
  const rows = await layoutOf(page, 'tr.txn-row', {
    date: 'td.date time',
    payee: 'td.payee',
    category: 'td.category',
    amount: 'td.amount',
  })
  expect(rows.map((r) => r.id).sort()).toEqual(seeded.transactions.map((t) => t.id).sort())
  for (const t of seeded.transactions) {
    const row = rows.find((r) => r.id === t.id)!
    expect(row.parts.date?.value).toBe(t.date)
    expect(row.parts.date?.text).not.toBe('')
    if (t.payeeId) expect(row.parts.payee?.text).toBe(seeded.payees.get(t.payeeId))
    const category = t.categoryId ? seeded.categoryName.get(t.categoryId)! : /Uncategorized|Suggested|—/
    expect(row.parts.category?.text).toMatch(category)
    expect(row.parts.amount?.text).toBe(formatCents(t.amountCents, 'USD'))
  }
  expectInSight(rows, width)
  return rows
}

async function checkBudget(page: Page, seeded: Seeded, width: number) {
  await go(page, `/budget/${MONTH}`)
  await settled(page)
  await page.locator('input[name="assigned"]:not([disabled])').first().waitFor({ timeout: 60_000 })
  const categories = seeded.budget.groups.filter((g) => !g.isIncome).flatMap((g) => g.categories)
  expect(categories.length).toBeGreaterThan(5)
  const rows = await layoutOf(page, 'tr.category-row', {
    name: 'th .category-name',
    assigned: 'td:nth-child(2) input[name="assigned"]',
    activity: 'td:nth-child(3)',
    available: 'td:nth-child(4) .available',
  })
  for (const c of categories) {
    const row = rows.find((r) => r.id === c.name)
    expect(row, c.name).toBeDefined()
    expect(row!.parts.name?.text).toBe(c.name)
    expect(row!.parts.assigned?.value).toBe(centsToInput(c.assignedCents))
    expect(row!.parts.activity?.text).toContain(formatCents(c.activityCents, 'USD'))
    expect(row!.parts.available?.text).toContain(formatCents(c.availableCents, 'USD'))
  }
  // Income categories have no assigned field; the rest are checked where they are.
  const spending = rows.filter((r) => categories.some((c) => c.name === r.id))
  expectInSight(spending, width)
  return spending
}

describe.skipIf(!chromiumPath())('the register and the budget on a phone', () => {
  it('read as lists at 390×844: each row a card with its fields in sight, no sideways scroll, no violation', {
    timeout: 600_000,
  }, async () => {
    const owner = await server.newOwner()
    const seeded = await seed(owner)
    const context = await browser().newContext({
      viewport: PHONE,
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
      bypassCSP: true,
    })
    try {
      const page = await signedIn(context, owner, 'Phone')
      const found: string[] = []

      const register = await checkRegister(page, seeded, PHONE.width)
      // A card: the row's fields on more than one line (a table row keeps them on one).
      for (const row of register) {
        expect(row.display, row.id!).not.toBe('table-row')
        expect(row.parts.date!.box.top, row.id!).toBeGreaterThan(row.parts.payee!.box.top)
      }
      expect(await sideways(page, 'table.register-table')).toEqual([])
      // Still a table to a screen reader: rows, cells and the column headers that name them.
      const registerRoles = await accessibleRoles(page, 'table.register-table')
      expect(registerRoles[0]?.role).toBe('table')
      expect(registerRoles.filter((n) => n.role === 'row').length).toBeGreaterThan(seeded.transactions.length)
      // (Chromium names a header by its text as shown, in capitals.)
      expect(registerRoles.filter((n) => n.role === 'columnheader').map((n) => n.name.toLowerCase())).toEqual(
        expect.arrayContaining(['date', 'payee', 'category', 'amount']),
      )
      expect(registerRoles.some((n) => n.role === 'cell' || n.role === 'gridcell')).toBe(true)
      found.push(...(await axeViolations(page, 'register')))

      // All transactions has an account on each card too.
      await go(page, '/transactions')
      await settled(page)
      await page.locator('tr.txn-row td.account').first().waitFor({ timeout: 60_000 })
      expectInSight(
        await layoutOf(page, 'tr.txn-row', { account: 'td.account', amount: 'td.amount' }),
        PHONE.width,
      )
      expect(await sideways(page, 'table.register-table')).toEqual([])

      const budget = await checkBudget(page, seeded, PHONE.width)
      for (const row of budget) {
        expect(row.display, row.id!).not.toBe('table-row')
        expect(row.parts.assigned!.box.top, row.id!).toBeGreaterThan(row.parts.name!.box.top)
      }
      // Each figure is labelled where it is shown (the label is not read out: the header names it).
      const labels = await page
        .locator('tr.category-row')
        .first()
        .locator('td.num')
        .evaluateAll((cells) => cells.map((c) => getComputedStyle(c, '::before').content))
      expect(labels).toEqual(['"Assigned" / ""', '"Activity" / ""', '"Available" / ""'])
      expect(await sideways(page, 'table.budget-table')).toEqual([])
      const budgetRoles = await accessibleRoles(page, 'table.budget-table')
      expect(budgetRoles[0]?.role).toBe('table')
      expect(budgetRoles.filter((n) => n.role === 'columnheader').map((n) => n.name.toLowerCase())).toEqual([
        'category',
        'assigned',
        'activity',
        'available',
      ])
      expect(budgetRoles.some((n) => n.role === 'rowheader' && n.name.startsWith('Groceries'))).toBe(true)
      found.push(...(await axeViolations(page, 'budget')))

      // Assigning from the card works as at a desktop.
      const groceries = page.locator('tr.category-row[data-category="Groceries"] input[name="assigned"]')
      await groceries.fill('2600.00')
      await groceries.press('Enter')
      await expect
        .poll(
          async () =>
            (
              await expectOk(
                owner.api.get(
                  `/households/${owner.householdId}/budgets/${MONTH}/categories/${seeded.budget.groups.flatMap((g) => g.categories).find((c) => c.name === 'Groceries')!.id}`,
                ),
              )
            ).assignedCents,
          { timeout: 60_000 },
        )
        .toBe('260000')
      expect(found).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('stay tables at a desktop width, their column headers shown', { timeout: 600_000 }, async () => {
    const owner = await server.newOwner()
    const seeded = await seed(owner)
    const context = await browser().newContext({ viewport: { width: 1280, height: 900 } })
    try {
      const page = await signedIn(context, owner, 'Desktop')
      const register = await checkRegister(page, seeded, 1280)
      expect(new Set(register.map((r) => r.display))).toEqual(new Set(['table-row']))
      const budget = await checkBudget(page, seeded, 1280)
      expect(new Set(budget.map((r) => r.display))).toEqual(new Set(['table-row']))
      const header = await page.locator('table.budget-table thead').boundingBox()
      expect(header?.height).toBeGreaterThan(10)
      await go(page, `/accounts/${seeded.checkingId}`)
      await settled(page)
      expect((await page.locator('table.register-table thead').boundingBox())?.height).toBeGreaterThan(10)
    } finally {
      await context.close()
    }
  })
})
