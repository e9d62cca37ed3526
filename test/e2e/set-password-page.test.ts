import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { AxeBuilder } from '@axe-core/playwright'
import { type Browser, chromium, type Page } from 'playwright-core'
import { sha256Hex } from '../../src/common/crypto.js'
import { newSecret } from '../../src/common/ids.js'
import { CHROMIUM_ARGS, ensureChromium } from './support/chromium.js'
import { type E2eServer, startE2eServer } from './support/server.js'

// D-15: the page of an invitation link, in Debian's Chromium: it passes axe's accessibility rules
// (labels, language, headings, contrast) before and after it is used, sets the password, and
// then links to the console.

const browserCheck = ensureChromium()
const skip = 'skip' in browserCheck ? `e2e skipped: ${browserCheck.skip}` : false
if (skip !== false) process.stdout.write(`# ${skip}\n`)

describe('the set-password page in a browser (D-15)', { skip }, () => {
  let e2e: E2eServer
  let browser: Browser
  let page: Page

  /** A /v1 call with the admin key. */
  const api = async (apiPath: string, body: unknown): Promise<Response> =>
    fetch(`${e2e.url}${apiPath}`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(e2e.keys.admin).toString('base64')}`, 'content-type': 'application/json' },
      body: JSON.stringify(body)
    })

  /** A staff user with a live set-password token of their own (as an invitation makes one). */
  async function invited(): Promise<{ email: string; token: string }> {
    const email = `page.${Date.now()}@example.com`
    const made = await api('/v1/staff/create', { email, name: 'Page Tester', role: 'staff', password: 'temporary-pass' })
    assert.equal(made.status, 200, await made.clone().text())
    const { staff_id } = (await made.json()) as { staff_id: string }
    const token = newSecret()
    const now = Date.now()
    await e2e.server.database.unitOfWork.run(async ({ db }) => {
      await db
        .insertInto('staff_password_tokens')
        .values({ token_hash: sha256Hex(token), staff_id, created_at: now, expires_at: now + 3_600_000, used_at: null })
        .execute()
    })
    return { email, token }
  }

  async function assertAccessible(): Promise<void> {
    const results = await new AxeBuilder({ page }).analyze()
    assert.deepEqual(
      results.violations.map((v) => `${v.id}: ${v.help}`),
      []
    )
  }

  before(async () => {
    e2e = await startE2eServer()
    browser = await chromium.launch({ executablePath: 'executable' in browserCheck ? browserCheck.executable : '', args: CHROMIUM_ARGS })
    page = await (await browser.newContext({ baseURL: e2e.url, locale: 'en-US' })).newPage()
  })

  after(async () => {
    await browser?.close()
    await e2e?.stop()
  })

  it('should pass axe, set the password, then link to the console', async () => {
    const user = await invited()
    const response = await page.goto(`/console/set-password?token=${user.token}`)
    assert.equal(response?.status(), 200)
    // The token leaves the address bar once read.
    assert.equal(new URL(page.url()).search, '')
    await assertAccessible()
    await page.getByLabel('New password (8 to 128 characters)').fill('a-good-password')
    await page.getByLabel('The same password again').fill('a-good-password')
    await page.getByRole('button', { name: 'Set password' }).click()
    const link = page.getByRole('link', { name: 'Sign in to the console' })
    await link.waitFor()
    assert.match((await page.locator('#message').textContent()) ?? '', /^Your password is set\. /)
    assert.equal(new URL(await link.evaluate((a) => (a as unknown as { href: string }).href)).pathname, '/console/')
    await assertAccessible()
    const signedIn = await fetch(`${e2e.url}/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: user.email, password: 'a-good-password' })
    })
    assert.equal(signedIn.status, 200)
  })

  it('should say what is wrong, accessibly: passwords that differ, a spent link, no token', async () => {
    const user = await invited()
    await page.goto(`/console/set-password?token=${user.token}`)
    await page.getByLabel('New password (8 to 128 characters)').fill('a-good-password')
    await page.getByLabel('The same password again').fill('another-password')
    await page.getByRole('button', { name: 'Set password' }).click()
    assert.equal(await page.locator('#message').textContent(), 'The two passwords are not the same.')
    await assertAccessible()
    await page.goto(`/console/set-password?token=${user.token}x`)
    await page.getByLabel('New password (8 to 128 characters)').fill('a-good-password')
    await page.getByLabel('The same password again').fill('a-good-password')
    await page.getByRole('button', { name: 'Set password' }).click()
    await page.getByText('This set-password link is not valid, was already used, or has expired.').waitFor()
    await assertAccessible()
    await page.goto('/console/set-password')
    assert.equal(await page.locator('#message').textContent(), 'This link holds no token. Ask an admin to invite you again.')
    await assertAccessible()
  })
})
