import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'

/**
 * What the browser tests (and bench:web) look at on a screen of the app, in one place: going to a
 * screen as the app's own links do, waiting until it has nothing left opening, axe-core's
 * serious and critical violations, and what reaches past the page's right edge.
 */

let axe: string | undefined

/** A screen still waiting for something: a loading line, a read still opening, a busy region. */
export const SCREEN_BUSY =
  'main .loading, main [data-problem="opening"], main [data-problem="first-sync"], main [aria-busy="true"]'

/** Goes to a path below /app inside the page, as the app's own links do. */
export async function go(page: Page, path: string): Promise<void> {
  await page.evaluate((p) => {
    history.pushState(null, '', `/app${p}`)
    dispatchEvent(new PopStateEvent('popstate'))
  }, path)
}

/** Waits until the screen shows its heading and has nothing left opening. */
export async function settled(page: Page): Promise<void> {
  await page.locator('main h1').first().waitFor({ timeout: 60_000 })
  await page.waitForFunction((busy) => !document.querySelector(busy), SCREEN_BUSY, { timeout: 60_000 })
  // What the app does a frame after a change (a wide table made reachable by keyboard) is done.
  await page.evaluate(
    () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
  )
}

/**
 * axe-core's serious and critical violations on the page as it is, one line each, prefixed with
 * `label`. axe is injected as a script of the page: its context needs `bypassCSP: true`, since the
 * app's Content-Security-Policy refuses inline scripts.
 */
export async function axeViolations(page: Page, label: string): Promise<string[]> {
  axe ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: axe })
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (c: unknown, o: unknown) => Promise<any> } }).axe
    const result = await axe.run(document, { resultTypes: ['violations'] })
    return result.violations
      .filter((v: { impact: string }) => v.impact === 'serious' || v.impact === 'critical')
      .map(
        (v: { id: string; impact: string; nodes: { target: string[] }[] }) =>
          `${v.id} (${v.impact}): ${v.nodes
            .slice(0, 3)
            .map((n) => n.target.join(' '))
            .join(' | ')}`,
      )
  })
  return violations.map((v: string) => `${label}: ${v}`)
}

/** The innermost elements that reach past the page's right edge, for a failure's message. */
export function overflowing(page: Page): Promise<string> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth
    const past = [...document.querySelectorAll('body *')].filter(
      (e) =>
        e.getBoundingClientRect().right > width + 1 &&
        ![...e.children].some((c) => c.getBoundingClientRect().right > width + 1),
    )
    return past
      .slice(0, 4)
      .map(
        (e) =>
          `${e.tagName.toLowerCase()}${e.className ? `.${String(e.className).split(' ').join('.')}` : ''} → ${Math.round(e.getBoundingClientRect().right)}px`,
      )
      .join(', ')
  })
}
