import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core'
import { ROOT } from '../../helpers/processes.js'
import { CHROMIUM_ARGS, ensureChromium } from './chromium.js'
import type { E2eServer, StaffUser } from './server.js'

// Shared by every browser test: one Chromium per file, pages with generous timeouts (a loaded
// two-core machine), waits on conditions only, and screenshots for docs/.

const browserCheck = ensureChromium()

/** `skip` for describe(): why the browser tests cannot run here, or false. */
export const skip = 'skip' in browserCheck ? `e2e skipped: ${browserCheck.skip}` : false
if (skip !== false) process.stdout.write(`# ${skip}\n`)

/** How long any single wait may take before the test fails. */
const WAIT_MS = 30_000

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: 'executable' in browserCheck ? browserCheck.executable : '', args: CHROMIUM_ARGS })
}

/** A tab of its own (own cookies and storage) and the script errors it logged. */
export interface Tab {
  readonly context: BrowserContext
  readonly page: Page
  /** Uncaught errors and console errors other than failed loads (401s and 409s on purpose). */
  readonly problems: string[]
}

export async function openTab(
  browser: Browser,
  e2e: E2eServer,
  options: { timezoneId?: string; viewport?: { width: number; height: number } } = {}
): Promise<Tab> {
  const context = await browser.newContext({
    baseURL: e2e.url,
    viewport: options.viewport ?? { width: 1360, height: 820 },
    locale: 'en-US',
    timezoneId: options.timezoneId ?? 'UTC'
  })
  context.setDefaultTimeout(WAIT_MS)
  const page = await context.newPage()
  const problems: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(message.text())
  })
  page.on('pageerror', (error) => problems.push(error.message))
  return { context, page, problems }
}

/** Polls `read` until `done` holds for its answer; fails with the last answer after WAIT_MS. */
export async function waitUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + WAIT_MS
  let last: T | undefined
  while (Date.now() < deadline) {
    last = await read()
    if (done(last)) return last
    await sleep(100)
  }
  return assert.fail(`${what}: still not so after ${WAIT_MS} ms; last seen ${JSON.stringify(last)}`)
}

/** Waits until the locator's text contains `expected` (playwright-core has no `expect`). */
export async function hasText(locator: Locator, expected: string): Promise<void> {
  await waitUntil(
    async () => (await locator.textContent({ timeout: WAIT_MS }).catch(() => '')) ?? '',
    (text) => text.includes(expected),
    `text containing ${JSON.stringify(expected)}`
  )
}

/** The console's status line (a polite live region). */
export const statusLine = (page: Page) => page.locator('#status')

/** A link of the console's navigation. */
export const navLink = (page: Page, name: string) => page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name })

/** Waits for the page's main heading (h1) to read `name`. */
export const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { name, level: 1 }).waitFor()

/** Signs in on the console's sign-in page with e-mail and password (D-16) and waits for the board. */
export async function signIn(page: Page, user: Pick<StaffUser, 'email' | 'password'>): Promise<void> {
  if (!page.url().includes('/console/')) await page.goto('/console/')
  await page.getByLabel('E-mail', { exact: true }).fill(user.email)
  await page.getByLabel('Password', { exact: true }).fill(user.password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await page.getByRole('navigation', { name: 'Console' }).waitFor()
}

// Written when missing, or all rewritten with SCREENSHOTS=update (docs/console.md).
const updateScreenshots = process.env.SCREENSHOTS === 'update'

/**
 * Saves a screenshot as docs/<name> when it is missing or SCREENSHOTS=update: the window from the
 * top of the page, or the whole page with `fullPage`.
 */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  const file = path.join(ROOT, 'docs', name)
  if (fs.existsSync(file) && !updateScreenshots) return
  // No caret or focus ring caught mid-frame, and the page from its top.
  await page.locator(':focus').evaluateAll((focused) => {
    for (const element of focused) element.blur()
  })
  await page.evaluate('window.scrollTo(0, 0)')
  await page.screenshot({ path: file, fullPage: options.fullPage === true, animations: 'disabled', caret: 'hide' })
}
