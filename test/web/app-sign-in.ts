import type { Page } from 'playwright-core'

/**
 * Signs a page into the app with an API key (which the app exchanges for a session cookie and
 * does not keep), picking `household` when the key's user has several, and returns once the app's
 * shell is there (the sign-in screen has a `main h1` of its own, so a test that waits for one and
 * then moves to a screen can be sent back to the budget by the sign-in it raced). The one place
 * tests of the app sign in, so a new sign-in screen changes one function.
 */
export async function signInToApp(
  page: Page,
  options: { url: string; token: string; device: string; household?: string },
): Promise<void> {
  await page.goto(`${options.url}/app/`)
  await page.getByRole('tab', { name: 'API key' }).click()
  await page.getByLabel('API key').fill(options.token)
  await page.getByLabel('This device’s name').fill(options.device)
  await page.getByRole('button', { name: 'Sign in' }).click()
  if (options.household) {
    await page.getByRole('heading', { name: 'Choose a household' }).waitFor({ timeout: 15_000 })
    await page.locator('button.household-choice', { hasText: options.household }).click()
  }
  // Attached, not visible: on a phone the sidebar is folded away behind its menu button.
  await page.locator('#main-nav').waitFor({ state: 'attached', timeout: 120_000 })
}

/**
 * Joins a household with an invitation code on the sign-in screen, as a new person: their name,
 * and an email and password when the screen asks for them.
 */
export async function joinWithInvitation(
  page: Page,
  options: { url: string; code: string; name: string; device: string },
): Promise<void> {
  await page.goto(`${options.url}/app/`)
  await page.getByRole('tab', { name: 'Invitation code' }).click()
  await page.getByLabel('Invitation code').fill(options.code)
  await page.getByLabel('Your name').fill(options.name)
  const email = page.getByLabel('Email')
  // Unique per run: a store kept between runs (PostgreSQL) still holds the last run's people.
  if (await email.count())
    await email.fill(`${options.name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${Date.now()}@example.com`)
  const password = page.getByLabel(/^Password/)
  if (await password.count()) await password.fill('correct horse battery staple')
  await page.getByLabel('This device’s name').fill(options.device)
  await page.getByRole('button', { name: 'Join the household' }).click()
}

/** Records every state the sync badge shows from the page's first script on (`window.badgeStates`). */
export async function recordBadgeStates(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen: string[] = []
    ;(window as unknown as { badgeStates: string[] }).badgeStates = seen
    new MutationObserver(() => {
      const state = document.querySelector('.sync-badge')?.getAttribute('data-state')
      if (state && seen.at(-1) !== state) seen.push(state)
    }).observe(document, { subtree: true, childList: true, attributes: true })
  })
}

/** The states the sync badge went through since the page loaded, in order. */
export function badgeStates(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { badgeStates: string[] }).badgeStates)
}

/**
 * Waits until the page's replica has stored in IndexedDB everything it committed: a commit
 * answers before its blocks are stored (relaxed durability), and a reload or a closed browser
 * within that moment reopens the replica as it was before (it then syncs the rest from the
 * server). A test that looks at the replica offline after a reload waits for this first.
 */
export async function replicaStored(page: Page): Promise<void> {
  const done = await page.evaluate(async () => {
    const store = (globalThis as unknown as { hearth?: { store: { persisted?: () => Promise<void> } } })
      .hearth?.store
    if (typeof store?.persisted !== 'function') return 'the app has no replica with persisted()'
    await store.persisted()
    return 'stored'
  })
  if (done !== 'stored') throw new Error(done)
}
