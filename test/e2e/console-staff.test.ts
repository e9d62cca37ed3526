import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Locator, Page } from 'playwright-core'
import { hasText, heading, launchBrowser, navLink, openTab, screenshot, signIn, skip, statusLine, type Tab } from './support/browser.js'
import { invitationLink } from './support/mail.js'
import { type E2eServer, type StaffUser, startE2eServer } from './support/server.js'
import { ensureWebBuild } from './support/web-build.js'

// The Staff page of an admin (D-15, D-18): an invitation e-mailed with a set-password link, followed
// in the invited person's own browser; a change of role; disabling someone, which throws them out
// of a console they have open on their very next action.

// The buttons of a row name whom they act on (aria-label), for a screen reader.
const roleButton = (role: string, name: string) => `Make ${role}: ${name}`

const BEN = { name: 'Ben Baker', email: 'ben.baker@example.com', password: 'ben-chooses-this-one' }

describe('the Staff page of an admin: invite, change a role, disable (Chromium)', { skip }, () => {
  let e2e: E2eServer
  let browser: Browser
  let admin: Tab
  let page: Page
  let ada: StaffUser
  let ben: Tab

  const staffList = async () => (await e2e.api<{ staff: Array<Record<string, string>> }>('/v1/staff/list')).staff
  const benOnServer = async () => (await staffList()).find((person) => person.email === BEN.email)
  const row = (name: string): Locator =>
    page.locator('table.staff-table tbody tr', { has: page.getByRole('rowheader', { name: new RegExp(`^${name}`) }) })

  before(async () => {
    ensureWebBuild()
    // The dispatcher runs: invitations land in DATA_DIR/mail as .eml files.
    e2e = await startE2eServer({ dispatcher: true })
    ada = await e2e.staff('Ada Admin', 'admin')
    await e2e.staff('Carmen Diaz')
    await e2e.staff('Dev Patel', 'admin')
    browser = await launchBrowser()
    admin = await openTab(browser, e2e)
    page = admin.page
    await signIn(page, ada)
  })

  after(async () => {
    await browser?.close()
    await e2e?.stop()
  })

  it('should list everyone and invite a new staff member by e-mail', async () => {
    await navLink(page, 'Staff').click()
    await heading(page, 'Staff')
    assert.deepEqual(await page.locator('table.staff-table tbody th').allTextContents(), ['Ada Admin (you)', 'Carmen Diaz', 'Dev Patel'])
    const form = page.locator('section.card', { has: page.getByRole('heading', { name: 'Invite someone' }) })
    await form.getByLabel('Name').fill(BEN.name)
    await form.getByLabel('E-mail').fill(BEN.email)
    await form.getByLabel('Role').selectOption('staff')
    await form.getByRole('button', { name: 'Send invitation' }).click()
    await hasText(statusLine(page), `Invitation sent: ${BEN.email} has an e-mail with a link to choose a password (valid for 72 hours).`)
    await hasText(row(BEN.name), 'Active')
    assert.deepEqual(await row(BEN.name).locator('td').allTextContents(), [
      BEN.email,
      'Staff',
      'Active',
      await row(BEN.name).locator('time').textContent(),
      'Make adminDisable'
    ])
    const made = await benOnServer()
    assert.deepEqual([made?.name, made?.role, made?.status], [BEN.name, 'staff', 'active'])
  })

  it('should let the invited person follow the e-mailed link, choose a password and sign in', async () => {
    const link = await invitationLink(e2e, BEN.email)
    ben = await openTab(browser, e2e)
    const response = await ben.page.goto(link)
    assert.equal(response?.status(), 200)
    await ben.page.getByLabel('New password (8 to 128 characters)').fill(BEN.password)
    await ben.page.getByLabel('The same password again').fill(BEN.password)
    await ben.page.getByRole('button', { name: 'Set password' }).click()
    await ben.page.getByRole('link', { name: 'Sign in to the console' }).click()
    await signIn(ben.page, BEN)
    await heading(ben.page, 'Board')
    await hasText(ben.page.locator('header .who'), 'Signed in as Ben Baker staff')
    assert.equal(await navLink(ben.page, 'Staff').count(), 0)
    // The link is spent.
    await ben.page.goto(link)
    await ben.page.getByLabel('New password (8 to 128 characters)').fill('another-password')
    await ben.page.getByLabel('The same password again').fill('another-password')
    await ben.page.getByRole('button', { name: 'Set password' }).click()
    await ben.page.getByText('This set-password link is not valid, was already used, or has expired.').waitFor()
    await ben.page.goto('/console/')
    await heading(ben.page, 'Board')
  })

  it("should change someone's role, and refuse to leave the shop without an active admin", async () => {
    await row(BEN.name)
      .getByRole('button', { name: roleButton('admin', BEN.name) })
      .click()
    await hasText(statusLine(page), `${BEN.name} is now an admin.`)
    await hasText(row(BEN.name).locator('td').nth(1), 'Admin')
    assert.equal((await benOnServer())?.role, 'admin')
    await row(BEN.name)
      .getByRole('button', { name: roleButton('staff', BEN.name) })
      .click()
    await hasText(statusLine(page), `${BEN.name} is now staff.`)
    assert.equal((await benOnServer())?.role, 'staff')
    // Dev is the only other admin: disabled, Ada is the last one and cannot stop being one (D-15).
    await row('Dev Patel').getByRole('button', { name: 'Disable Dev Patel' }).click()
    await hasText(statusLine(page), 'Dev Patel is disabled and signed out everywhere.')
    await row('Ada Admin')
      .getByRole('button', { name: roleButton('staff', 'Ada Admin') })
      .click()
    await hasText(
      page.locator('.staff-layout [role="alert"]').first(),
      'Ada Admin is the only active admin. Make someone else an admin first'
    )
    assert.equal((await staffList()).find((person) => person.name === 'Ada Admin')?.role, 'admin')
  })

  it('should disable a member, who is thrown out of their open console on their next action', async () => {
    await row(BEN.name)
      .getByRole('button', { name: `Disable ${BEN.name}` })
      .click()
    await hasText(statusLine(page), `${BEN.name} is disabled and signed out everywhere.`)
    await hasText(row(BEN.name), 'Disabled')
    await row(BEN.name)
      .getByRole('button', { name: `Enable ${BEN.name}` })
      .waitFor()
    assert.equal((await benOnServer())?.status, 'disabled')
    // Ben's tab still shows the board; his next click finds the session gone.
    await navLink(ben.page, 'Customers').click()
    await ben.page.getByLabel('E-mail', { exact: true }).waitFor()
    await hasText(
      ben.page.locator('main [role="alert"]').first(),
      'Your session has ended (signed out elsewhere, timed out, or the account changed). Sign in again.'
    )
    assert.equal(await ben.page.evaluate<number>('sessionStorage.length'), 0)
    assert.equal(await navLink(ben.page, 'Customers').count(), 0)
    // Nor can he sign in again.
    await ben.page.getByLabel('E-mail', { exact: true }).fill(BEN.email)
    await ben.page.getByLabel('Password', { exact: true }).fill(BEN.password)
    await ben.page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await hasText(ben.page.locator('.signin-form [role="alert"]'), 'That e-mail and password do not match an active staff account.')
    await screenshot(page, 'console-staff.png')
    assert.deepEqual([...admin.problems, ...ben.problems], [], 'no script errors or Content-Security-Policy violations')
  })
})
