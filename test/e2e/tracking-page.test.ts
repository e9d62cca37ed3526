import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { hasText, heading, launchBrowser, openTab, screenshot, signIn, skip, statusLine, type Tab, waitUntil } from './support/browser.js'
import { seedCustomer, seedOrder, seedService } from './support/seed.js'
import { type E2eServer, startE2eServer } from './support/server.js'
import { ensureWebBuild } from './support/web-build.js'

// The customer's tracking page (/track/<token>): only their journey — placed, each step reached,
// completed — never the shop's own entries (note and date edits, receipt changes, the `tracked`
// entries of `trak` events, which repeat the step they announce), nothing about the customer.
// The dispatcher runs, so `trak` events really write their history entries.

const SERVICE = 'Wash & Fold'
const STEPS = [
  { description: 'Picked up', button: 'Start washing', events: ['trak'] },
  { description: 'Washing', button: 'Start folding', events: ['trak', 'email'] },
  { description: 'Folding', button: 'Out for delivery' },
  { description: 'Delivered', button: 'Hand over', events: ['trak'] }
]

describe('the tracking page in Chromium', { skip }, () => {
  let e2e: E2eServer
  let browser: Browser
  let staff: Tab
  let customer: Tab
  let page: Page
  let order: { transaction_id: string; transaction_code: string }
  let customerId = ''
  let link = ''

  const history = async (id: string) => (await e2e.api(`/v1/transaction/${id}/history`)).history as Array<{ type: string }>
  const timeline = (on: Page) =>
    on
      .locator('.timeline li')
      .evaluateAll((items) =>
        items.map((item) => [
          item.getAttribute('data-type'),
          item.querySelector('strong')?.textContent,
          item.querySelector('span')?.textContent
        ])
      )

  before(async () => {
    ensureWebBuild()
    e2e = await startE2eServer({ dispatcher: true })
    const ana = await e2e.staff('Ana Lopez')
    const items = await seedService(e2e, SERVICE, STEPS, [{ title: 'Shirt', price: 250 }])
    customerId = await seedCustomer(e2e, 'Ada Lovelace', { phone: '2125550100' })
    order = await seedOrder(e2e, { customer_id: customerId, service_name: SERVICE, notes: 'Starch the collars' })
    await e2e.api('/v1/receipt/add', { transaction_id: order.transaction_id, item_id: items.get('Shirt'), quantity: 2 })
    browser = await launchBrowser()
    staff = await openTab(browser, e2e)
    page = staff.page
    customer = await openTab(browser, e2e, { viewport: { width: 760, height: 900 } })
    await signIn(page, ana)
  })

  after(async () => {
    await browser?.close()
    await e2e?.stop()
  })

  it('should hand out the link from the order page, and show the order on its way with no credentials', async () => {
    await page.goto(`/console/#/transaction/${encodeURIComponent(order.transaction_id)}`)
    await heading(page, `Order #${order.transaction_code}`)
    await page.getByRole('button', { name: 'Get tracking link' }).click()
    link = await page.getByLabel('Tracking link for the customer').inputValue()
    assert.match(link, /\/track\/[A-Za-z0-9_-]{43}$/)
    const response = await customer.page.goto(new URL(link).pathname)
    assert.ok(response)
    assert.equal(response.headers()['referrer-policy'], 'no-referrer')
    assert.match(response.headers()['content-security-policy'] ?? '', /script-src 'self'/)
    await heading(customer.page, SERVICE)
    await hasText(customer.page.locator('.now'), 'Step 1 of 4')
    assert.deepEqual(await timeline(customer.page), [['created', 'Order placed', 'Step 1: Picked up']])
  })

  it("should show only the customer's journey: placed, each step reached, completed", async () => {
    // The shop's own work on the order: a note and a pickup change, from the console.
    await page.getByRole('textbox', { name: 'Note' }).fill('Starch the collars, no bleach')
    await page.getByRole('button', { name: 'Save changes' }).click()
    await hasText(statusLine(page), 'The changes are saved.')
    for (let step = 1; step <= STEPS.length; step++) {
      await e2e.api('/v1/transaction/move', { customer_id: customerId, transaction_id: order.transaction_id, position_number: step })
    }
    // The dispatcher writes a `tracked` entry for each step entered with a `trak` event: 1, 2 and 4.
    const entries = await waitUntil(
      () => history(order.transaction_id),
      (all) => all.filter((entry) => entry.type === 'tracked').length === 3,
      'three tracking entries in the history'
    )
    assert.ok(entries.some((entry) => entry.type === 'updated') && entries.some((entry) => entry.type === 'receipt_added'))
    await customer.page.reload()
    await hasText(customer.page.locator('.now'), 'Step 4 of 4')
    await hasText(customer.page.locator('.now h2'), 'Complete')
    assert.equal(await customer.page.locator('progress').getAttribute('value'), '100')
    assert.deepEqual(await timeline(customer.page), [
      ['closed', 'Completed', 'Step 4: Delivered'],
      ['moved', 'Reached: Delivered', 'Step 4'],
      ['moved', 'Reached: Folding', 'Step 3'],
      ['moved', 'Reached: Washing', 'Step 2'],
      ['created', 'Order placed', 'Step 1: Picked up']
    ])
    const journey = (await customer.page.locator('.timeline').textContent()) ?? ''
    for (const word of ['Updated', 'Tracking update', 'receipt', 'Changed']) assert.ok(!journey.includes(word), `the timeline says ${word}`)
    const text = (await customer.page.locator('body').textContent()) ?? ''
    for (const secret of ['Ada', 'Lovelace', '2125550100', 'Starch', 'bleach', 'Shirt', '$', order.transaction_code, 'Ana', 'staff']) {
      assert.ok(!text.includes(secret), `the tracking page shows ${secret}`)
    }
  })

  it('should stop working for the old link once the shop replaces it', async () => {
    await page.getByRole('button', { name: 'Replace link' }).click()
    await hasText(statusLine(page), 'the old link no longer works')
    const renewed = await page.getByLabel('Tracking link for the customer').inputValue()
    assert.notEqual(renewed, link)
    await customer.page.reload()
    await heading(customer.page, 'This link does not work')
    await customer.page.goto(new URL(renewed).pathname)
    await heading(customer.page, SERVICE)
  })

  it('should show an order on its way, for the screenshot', async () => {
    const other = await seedCustomer(e2e, 'Grace Hopper')
    const moving = await seedOrder(e2e, { customer_id: other, service_name: SERVICE, moves: 2 })
    const { tracking_url } = await e2e.api(`/v1/transaction/${moving.transaction_id}/tracking`)
    await waitUntil(
      () => history(moving.transaction_id),
      (all) => all.filter((entry) => entry.type === 'tracked').length === 2,
      'two tracking entries'
    )
    await customer.page.goto(new URL(tracking_url).pathname)
    await hasText(customer.page.locator('.now'), 'Step 3 of 4')
    assert.deepEqual(
      (await timeline(customer.page)).map(([type]) => type),
      ['moved', 'moved', 'created']
    )
    await screenshot(customer.page, 'tracking-page.png')
    assert.deepEqual([...staff.problems, ...customer.problems], [], 'no script errors or Content-Security-Policy violations')
  })
})
