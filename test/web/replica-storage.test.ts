import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath, launchPersistentChromium } from '../src/browser.ts'
import type { TestMember } from '../src/index.ts'
import { useTestServer } from '../src/index.ts'
import { replicaStored } from './app-sign-in.ts'
import { ensureWebBuild } from './web-build.ts'

/**
 * The browser replica's storage (client-sdk/src/idb-block-fs.ts) in Chromium, with a profile on
 * disk as a person's browser has (`launchPersistentContext`; a `newContext()` keeps IndexedDB in
 * memory): the replica outlives the browser, one tab at a time has it, and a damaged one is
 * rebuilt from the server with the pending edits replayed.
 */
const ROOT = join(import.meta.dirname, '..', '..')
const SCREENSHOTS = join(ROOT, 'test-artifacts', 'screenshots')

const server = useTestServer()
const hasBrowser = Boolean(chromiumPath())
let owner: TestMember
let accountId: string
const rows: { id: string; memo: string }[] = []
let profile: string
let context: BrowserContext | null = null
let page: Page

beforeAll(async () => {
  ensureWebBuild()
  mkdirSync(SCREENSHOTS, { recursive: true })
  profile = mkdtempSync(join(tmpdir(), 'hearth-replica-storage-'))
  owner = await server.newOwner()
  const h = `/households/${owner.householdId}`
  const account = await owner.api.post(`${h}/accounts`, { name: 'Checking', type: 'cash' })
  expect(account.status).toBe(201)
  accountId = account.body.id
  rows.push(await addRow('before sign-in'))
}, 300_000)

afterEach(async (test) => {
  if (test.task.result?.state === 'fail')
    await page?.screenshot({ path: join(SCREENSHOTS, 'failed-replica-storage.png') }).catch(() => {})
})

afterAll(async () => {
  await context?.close()
  rmSync(profile, { recursive: true, force: true })
})

async function addRow(memo: string) {
  const res = await owner.api.post(`/households/${owner.householdId}/transactions`, {
    accountId,
    date: '2026-11-20',
    amountCents: '-1500',
    payeeName: 'Bakery',
    memo,
  })
  expect(res.status).toBe(201)
  return { id: res.body.id as string, memo }
}

async function launch() {
  context = await launchPersistentChromium(profile)
  const first = context.pages()[0] ?? (await context.newPage())
  watch(first)
  return first
}

function watch(p: Page) {
  p.on('pageerror', (error) => console.error('page error:', error.message))
}

/** The memo the register shows on a row, once the row is there. */
async function memoShown(p: Page, id: string) {
  const cell = p.locator(`tr.txn-row[data-id="${id}"] .memo`)
  await cell.waitFor({ timeout: 120_000 })
  return (await cell.textContent())?.trim()
}

describe.skipIf(!hasBrowser)('the browser replica in IndexedDB blocks', () => {
  it('outlives the browser: a new one on the same profile opens it offline', async () => {
    page = await launch()
    await page.goto(`${server.url}/app/`)
    await page.getByRole('tab', { name: 'API key' }).click()
    await page.getByLabel('API key').fill(owner.api.token)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForFunction(
      () => document.querySelector('.sync-badge')?.getAttribute('data-state') === 'online',
      null,
      { timeout: 180_000, polling: 100 },
    )
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined))
    // A row that reaches the replica as a delta, after its first snapshot.
    rows.push(await addRow('after sign-in'))
    await page.goto(`${server.url}/app/accounts/${accountId}`)
    for (const row of rows) expect(await memoShown(page, row.id)).toBe(row.memo)
    // What this test shows offline is what had been stored (see replicaStored).
    await replicaStored(page)
    await context!.close()

    // A new browser process, offline: the shell from the service worker, the rows from IndexedDB.
    page = await launch()
    await context!.setOffline(true)
    await page.goto(`${server.url}/app/accounts/${accountId}`)
    for (const row of rows) expect(await memoShown(page, row.id)).toBe(row.memo)
    await expect
      .poll(() => page.locator('.sync-badge').getAttribute('data-state'), { timeout: 60_000 })
      .toBe('offline')
  }, 420_000)

  it('is one tab’s at a time: a second tab is told REPLICA_IN_USE', async () => {
    const second = await context!.newPage()
    watch(second)
    await second.goto(`${server.url}/app/budget`)
    const alert = second.getByRole('alert')
    await alert.waitFor({ timeout: 60_000 })
    expect(await alert.getAttribute('data-code')).toBe('REPLICA_IN_USE')
    expect(await alert.textContent()).toContain('open in another tab')
    await second.close()
    // The first tab still has it, and works.
    expect(await memoShown(page, rows[0]!.id)).toBe(rows[0]!.memo)
  }, 120_000)

  it('is rebuilt from the server when its blocks are damaged, keeping a pending edit', async () => {
    // Offline, an edit the server has not seen: it waits in the queue (a database of its own).
    const edited = rows[1]!
    await page.evaluate(
      (id) =>
        (globalThis as unknown as { hearth: any }).hearth.mutate.transactions.update({
          id,
          memo: 'edited offline',
        }),
      edited.id,
    )
    expect(
      await page.evaluate(() => (globalThis as unknown as { hearth: any }).hearth.sync.status.pending),
    ).toBe(1)
    await page.close()

    // Another page of the origin, outside the app, zeroes the replica's pg_control.
    await context!.setOffline(false)
    const tool = await context!.newPage()
    watch(tool)
    await tool.goto(`${server.url}/healthz`)
    const damaged = await tool.evaluate(async () => {
      const session = JSON.parse(localStorage.getItem('hearth.session')!) as { store: string }
      const name = `hearth-replica:${session.store.slice('idb://'.length)}`
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open(name)
        open.onsuccess = () => resolve(open.result)
        open.onerror = () => reject(open.error)
      })
      const tx = db.transaction('blocks', 'readwrite')
      const blocks = tx.objectStore('blocks')
      const range = IDBKeyRange.bound(['/global/pg_control'], ['/global/pg_control', Number.MAX_VALUE])
      const found = await new Promise<{ path: string; index: number; data: Uint8Array }[]>((resolve) => {
        const all = blocks.getAll(range)
        all.onsuccess = () => resolve(all.result)
      })
      for (const block of found) blocks.put({ ...block, data: new Uint8Array(block.data.length) })
      await new Promise((resolve) => {
        tx.oncomplete = resolve
      })
      db.close()
      return found.length
    })
    expect(damaged).toBeGreaterThan(0)

    // The app opens anyway: a new replica, the server's rows, and the edit replayed and pushed.
    page = tool
    await page.goto(`${server.url}/app/accounts/${accountId}`)
    await expect.poll(() => memoShown(page, edited.id), { timeout: 120_000 }).toBe('edited offline')
    await expect
      .poll(
        async () =>
          (await owner.api.get(`/households/${owner.householdId}/transactions/${edited.id}`)).body.memo,
        { timeout: 60_000 },
      )
      .toBe('edited offline')
    expect(await memoShown(page, rows[0]!.id)).toBe(rows[0]!.memo)
    await page.waitForFunction(
      () => (globalThis as unknown as { hearth?: any }).hearth?.sync.status.pending === 0,
      null,
      { timeout: 60_000 },
    )
  }, 420_000)

  it('shows a change before its queue record is durable, and answers the call after', async () => {
    // On the replica the tests above left, online again: the app's own Hearth (window.hearth).
    const seen = await page.evaluate(async () => {
      const h = (globalThis as unknown as { hearth: any }).hearth
      const order: string[] = []
      const off = h.on('change', (e: { source: string }) => {
        if (e.source === 'local') order.push('change')
      })
      await h.mutate.tags.create({ name: `Early ${Math.random()}` })
      order.push('answered')
      off()
      const end = (phase: string) => {
        const m = performance.getEntriesByName(`hearth: mutate ${phase}`).at(-1)!
        return m.startTime + m.duration
      }
      return { order, committed: end('commit'), durable: end('queue wait') }
    })
    expect(seen.order).toEqual(['change', 'answered'])
    // The replica committed (and the live queries were told) before the record was durable.
    expect(seen.committed).toBeLessThanOrEqual(seen.durable)
  }, 60_000)
})
