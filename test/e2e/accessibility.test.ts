import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { assertAccessible } from './support/axe.js'
import { hasText, heading, launchBrowser, navLink, openTab, signIn, skip, type Tab } from './support/browser.js'
import { invitationLink } from './support/mail.js'
import { seedCustomer, seedOrder, seedService } from './support/seed.js'
import { type E2eServer, type StaffUser, startE2eServer } from './support/server.js'
import { ensureWebBuild } from './support/web-build.js'

// axe (@axe-core/playwright) on every page of the console, the tracking page and the two password
// pages, each as a person sees it with data in it: no violation of impact serious or critical; the
// others are printed (support/axe.ts).

const SERVICE = 'Wash & Fold'

describe('accessibility of every page (axe in Chromium)', { skip }, () => {
  let e2e: E2eServer
  let browser: Browser
  let tab: Tab
  let page: Page
  let admin: StaffUser
  let customerId = ''
  let order: { transaction_id: string; transaction_code: string }

  before(async () => {
    ensureWebBuild()
    // The dispatcher runs: the invitation's set-password link arrives as an e-mail file.
    e2e = await startE2eServer({ dispatcher: true, timeZone: 'America/Chicago' })
    const items = await seedService(
      e2e,
      SERVICE,
      [
        { description: 'Picked up', button: 'Start washing', events: ['email'], expected_minutes: 60 },
        { description: 'Washing', button: 'Start folding' },
        { description: 'Delivered', button: 'Hand over' }
      ],
      [
        { title: 'Shirt', price: 250, group: 'Tops' },
        { title: 'Duvet', price: 1800, group: 'Bedding' }
      ]
    )
    await seedService(e2e, 'Dry Cleaning', [{ description: 'Checked in', button: 'Clean' }])
    customerId = await seedCustomer(e2e, 'Ada Lovelace', { phone: '2125550100' })
    const grace = await seedCustomer(e2e, 'Grace Hopper')
    order = await seedOrder(e2e, { customer_id: customerId, service_name: SERVICE, notes: 'No starch' })
    await e2e.api('/v1/receipt/add', { transaction_id: order.transaction_id, item_id: items.get('Shirt'), quantity: 3 })
    for (const moves of [0, 1, 2]) await seedOrder(e2e, { customer_id: grace, service_name: SERVICE, moves, hours: 3 + moves })
    const closed = await seedOrder(e2e, { customer_id: grace, service_name: SERVICE })
    await e2e.api('/v1/transaction/update', { transaction_id: closed.transaction_id, status: 'closed' })
    browser = await launchBrowser()
    tab = await openTab(browser, e2e)
    page = tab.page
  })

  after(async () => {
    await browser?.close()
    await e2e?.stop()
  })

  it('should pass on the first-run sign-in page, with the set-up form', async () => {
    await page.goto('/console/')
    await page.getByRole('heading', { name: 'First run: set up the first admin' }).waitFor()
    await assertAccessible(page, 'the first-run sign-in page')
    admin = await e2e.staff('Ada Admin', 'admin')
  })

  it('should pass on the sign-in page, also when it shows an error', async () => {
    await page.reload()
    await heading(page, 'Corner Laundry staff console')
    await assertAccessible(page, 'the sign-in page')
    await page.getByLabel('E-mail', { exact: true }).fill(admin.email)
    await page.getByLabel('Password', { exact: true }).fill('wrong-password')
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await hasText(page.locator('.signin-form [role="alert"]'), 'do not match')
    await assertAccessible(page, 'the sign-in page with an error')
  })

  it('should pass on the set-password page of an invitation', async () => {
    await e2e.api('/v1/staff/create', { email: 'ben.baker@example.com', name: 'Ben Baker', role: 'staff' })
    const invited = await openTab(browser, e2e)
    try {
      await invited.page.goto(await invitationLink(e2e, 'ben.baker@example.com'))
      await invited.page.getByLabel('New password (8 to 128 characters)').waitFor()
      await assertAccessible(invited.page, 'the set-password page')
    } finally {
      await invited.context.close()
    }
  })

  it('should pass on the board', async () => {
    await signIn(page, admin)
    await heading(page, `Board: ${SERVICE}`)
    await page.locator('li.order-card').nth(3).waitFor()
    await assertAccessible(page, 'the board')
  })

  it('should pass on the order page, and with its confirmation dialog open', async () => {
    await page.goto(`/console/#/transaction/${encodeURIComponent(order.transaction_id)}`)
    await heading(page, `Order #${order.transaction_code}`)
    await page.locator('table.receipt').waitFor()
    await page.getByRole('button', { name: 'Get tracking link' }).click()
    await page.getByLabel('Tracking link for the customer').waitFor()
    await assertAccessible(page, 'the order page')
    await page.getByRole('button', { name: 'Change service…' }).click()
    await page.getByRole('dialog').waitFor()
    await assertAccessible(page, 'the order page with a dialog open')
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click()
  })

  it('should pass on the Orders list, open and closed', async () => {
    await navLink(page, 'Orders').click()
    await heading(page, 'Orders')
    await page.locator('table.orders-table tbody tr').nth(3).waitFor()
    await assertAccessible(page, 'the Orders list')
    await page.goto(`/console/#/orders/closed/${encodeURIComponent(SERVICE)}`)
    await page.getByRole('heading', { name: `Closed orders of ${SERVICE}` }).waitFor()
    await page.getByRole('button', { name: /^Reopen order/ }).waitFor()
    await assertAccessible(page, 'the closed orders')
  })

  it('should pass on the Customers list with search hits, and on a customer page', async () => {
    await navLink(page, 'Customers').click()
    await heading(page, 'Customers')
    await page.locator('table.customers tbody tr').nth(1).waitFor()
    await page.getByRole('searchbox', { name: 'Search' }).fill('ada')
    await page.getByRole('list', { name: 'Customers found' }).getByRole('link').first().waitFor()
    await assertAccessible(page, 'the Customers list')
    await page.goto(`/console/#/customers/${encodeURIComponent(customerId)}`)
    await heading(page, 'Ada Lovelace')
    await page.locator('table.orders').waitFor()
    await assertAccessible(page, 'a customer page')
    // With the field errors of a refused card.
    await page.getByRole('button', { name: 'Save card' }).click()
    await page.locator('.card-form .field-error:not(:empty)').first().waitFor()
    await assertAccessible(page, 'a customer page with field errors')
  })

  it("should pass on the catalogue and a service's page", async () => {
    await navLink(page, 'Catalogue').click()
    await heading(page, 'Catalogue')
    await assertAccessible(page, 'the catalogue')
    await page.getByRole('link', { name: SERVICE }).click()
    await heading(page, SERVICE)
    await page.locator('li.step').nth(2).waitFor()
    await assertAccessible(page, "a service's page")
  })

  it('should pass on the Staff page', async () => {
    await navLink(page, 'Staff').click()
    await heading(page, 'Staff')
    await page.locator('table.staff-table tbody tr').nth(1).waitFor()
    await assertAccessible(page, 'the Staff page')
  })

  it('should pass on the tracking page and its "link does not work" page', async () => {
    const { tracking_url } = await e2e.api(`/v1/transaction/${order.transaction_id}/tracking`)
    const visitor = await openTab(browser, e2e, { viewport: { width: 760, height: 900 } })
    try {
      await visitor.page.goto(new URL(tracking_url).pathname)
      await heading(visitor.page, SERVICE)
      await assertAccessible(visitor.page, 'the tracking page')
      await visitor.page.goto(`/track/${'x'.repeat(43)}`)
      await heading(visitor.page, 'This link does not work')
      await assertAccessible(visitor.page, 'the tracking page of a dead link')
    } finally {
      await visitor.context.close()
    }
  })

  it('should pass on the customer password reset page', async () => {
    await page.goto(`/reset-password?token=${'r'.repeat(43)}`)
    await page.getByRole('button').first().waitFor()
    await assertAccessible(page, 'the password reset page')
  })
})
