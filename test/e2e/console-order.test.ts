import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import {
  hasText,
  heading,
  launchBrowser,
  navLink,
  openTab,
  screenshot,
  signIn,
  skip,
  statusLine,
  type Tab,
  waitUntil
} from './support/browser.js'
import { seedCustomer, seedOrder, seedService } from './support/seed.js'
import { type E2eServer, type StaffUser, startE2eServer } from './support/server.js'
import { ensureWebBuild } from './support/web-build.js'

// A whole order in the console, from a new customer to closing: the customer is made and found
// again by a name word, the start of the e-mail and phone digits (D-33); an order is placed, an
// item added three at a time (D-54), moved across every step on the board with the keyboard alone
// and closed (D-55); the timeline names who did each thing (D-17, D-56).

const SERVICE = 'Wash & Fold'
const STEPS = [
  { description: 'Picked up', button: 'Start washing' },
  { description: 'Washing', button: 'Start folding' },
  { description: 'Folding', button: 'Out for delivery' },
  { description: 'Delivered', button: 'Hand over' }
]

describe('a whole order in the console, from a new customer to closing (Chromium)', { skip }, () => {
  let e2e: E2eServer
  let browser: Browser
  let tab: Tab
  let page: Page
  let ana: StaffUser
  let customerId = ''
  let transactionId = ''
  let code = ''

  const order = () => e2e.api(`/v1/transaction/${transactionId}`)
  const history = async () => (await e2e.api(`/v1/transaction/${transactionId}/history`)).history as Array<Record<string, string>>
  const section = (title: string) => page.locator('section.card', { has: page.getByRole('heading', { name: title, level: 2 }) })

  before(async () => {
    ensureWebBuild()
    e2e = await startE2eServer({ timeZone: 'America/Chicago' })
    ana = await e2e.staff('Ana Lopez')
    await seedService(e2e, SERVICE, STEPS, [
      { title: 'Shirt', price: 250, group: 'Tops' },
      { title: 'Trousers', price: 450, group: 'Bottoms' }
    ])
    // Others the searches must tell apart: "berg" starts a word of Bergman, only the middle of Greenberg.
    await seedCustomer(e2e, 'Ingrid Bergman', { phone: '2125550100' })
    await seedCustomer(e2e, 'Hank Greenberg', { phone: '3135550123' })
    const ada = await seedCustomer(e2e, 'Ada Lovelace')
    // Company on the board: the keyboard has to find its way past another order.
    await seedOrder(e2e, { customer_id: ada, service_name: SERVICE, hours: 2 })
    browser = await launchBrowser()
    tab = await openTab(browser, e2e)
    page = tab.page
    await signIn(page, ana)
  })

  after(async () => {
    await browser?.close()
    await e2e?.stop()
  })

  it('should create a customer with a name of three words and give them a phone number', async () => {
    await navLink(page, 'Customers').click()
    await heading(page, 'Customers')
    const form = section('New customer')
    await form.getByLabel('E-mail', { exact: true }).fill('olga.v@example.com')
    await form.getByLabel('ZIP code').fill('60614')
    await form.getByLabel('Name (optional)').fill('Olga Van Der Berg')
    await form.getByRole('button', { name: 'Create customer' }).click()
    await heading(page, 'Olga Van Der Berg')
    await hasText(statusLine(page), 'Customer olga.v@example.com is created.')
    customerId = decodeURIComponent(new URL(page.url()).hash.replace('#/customers/', ''))
    const created = await e2e.api(`/v1/customer/${customerId}`)
    assert.deepEqual(
      [created.first_name, created.last_name, created.email, created.address.city, created.address.state],
      ['Olga', 'Van Der Berg', 'olga.v@example.com', 'Chicago', 'IL']
    )
    const details = section('Details')
    await details.getByLabel('Phone').fill('(312) 555-0187')
    await details.getByRole('button', { name: 'Save details' }).click()
    await hasText(statusLine(page), 'The details are saved.')
    assert.equal((await e2e.api(`/v1/customer/${customerId}`)).phone, '3125550187')
  })

  it('should find the customer by a word of the last name, the start of the e-mail and digits of the phone', async () => {
    await navLink(page, 'Customers').click()
    await heading(page, 'Customers')
    const search = page.getByRole('searchbox', { name: 'Search' })
    const hits = page.getByRole('list', { name: 'Customers found' }).locator('li strong')
    const expectHits = async (query: string, names: string[]) => {
      // Emptied first, so the hits seen are this query's and not the last one's.
      await search.fill('')
      await waitUntil(
        () => hits.count(),
        (count) => count === 0,
        'the hits emptied'
      )
      await search.fill(query)
      await waitUntil(
        () => hits.allTextContents(),
        (seen) => seen.join('|') === names.join('|'),
        `the hits for ${JSON.stringify(query)}`
      )
      await hasText(page.locator('p.hint[role="status"]'), `${names.length} customer`)
    }
    await expectHits('berg', ['Ingrid Bergman', 'Olga Van Der Berg'])
    await expectHits('van der', ['Olga Van Der Berg'])
    await expectHits('olga.v', ['Olga Van Der Berg'])
    await expectHits('5550187', ['Olga Van Der Berg'])
    await expectHits('555', ['Ingrid Bergman', 'Hank Greenberg', 'Olga Van Der Berg'])
    await search.fill('reenberg')
    await hasText(page.locator('p[role="status"].hint'), 'No customer matches.')
    await expectHits('5550187', ['Olga Van Der Berg'])
    await page
      .getByRole('list', { name: 'Customers found' })
      .getByRole('link', { name: /Olga Van Der Berg/ })
      .click()
    await heading(page, 'Olga Van Der Berg')
  })

  it('should place an order for the customer and add three shirts in one go', async () => {
    const form = section('New order for Olga')
    await hasText(form, 'Times are in America/Chicago (shop time).')
    assert.equal(await form.getByLabel('Service').inputValue(), SERVICE)
    await form.getByLabel('Note (optional)').fill('Starch the collars')
    await form.getByRole('button', { name: 'Create order' }).click()
    await heading(page, /^Order #\d{8}$/)
    code = ((await page.getByRole('heading', { level: 1 }).textContent()) ?? '').replace('Order #', '')
    transactionId = decodeURIComponent(new URL(page.url()).hash.replace('#/transaction/', ''))
    await hasText(statusLine(page), `Order ${code} is created.`)
    const placed = await order()
    assert.deepEqual(
      [placed.customer_id, placed.note, placed.status, placed.service.position.position_number],
      [customerId, 'Starch the collars', 'open', '1']
    )

    const receipt = section('Receipt')
    await hasText(receipt, 'No items on the receipt yet.')
    await receipt.getByLabel('Item', { exact: true }).selectOption({ label: 'Shirt ($2.50)' })
    await receipt.getByLabel('Quantity').fill('3')
    await receipt.getByRole('button', { name: 'Add to receipt' }).click()
    await hasText(statusLine(page), 'Added 3 × Shirt to the receipt.')
    const line = page.locator('table.receipt tbody tr')
    assert.equal(await line.count(), 1)
    assert.deepEqual(await line.locator('th, td').allTextContents(), ['Shirt', '3', '$7.50', 'Remove one Shirt'])
    await hasText(page.locator('table.receipt tfoot .total'), '$7.50')
    const filled = await order()
    assert.deepEqual(
      filled.receipt.map((l: Record<string, string>) => [l.title, l.quantity, l.price]),
      [['Shirt', '3', '7.50']]
    )
    assert.equal(filled.total, '7.50')
  })

  it('should move the order across every step on the board with the keyboard alone, then close it', async () => {
    await navLink(page, 'Board').click()
    await heading(page, `Board: ${SERVICE}`)
    const card = (position: number) => page.locator(`section.column[data-position="${position}"] li[data-code="${code}"]`)
    const focusedOnOurButton = () =>
      page.locator(`button.move[data-transaction="${transactionId}"]`).evaluate((button) => button === button.ownerDocument.activeElement)
    for (const [index, step] of STEPS.entries()) {
      await card(index + 1).waitFor()
      // Tab until the move button of this order has focus (never a click), then Enter.
      let presses = 0
      while (!(await focusedOnOurButton())) {
        assert.ok(presses++ < 60, `Tab never reached the move button at step ${index + 1}`)
        await page.keyboard.press('Tab')
      }
      assert.equal(await page.locator(':focus').getAttribute('aria-label'), `${step.button}: order ${code}`)
      await page.keyboard.press('Enter')
      if (index + 1 < STEPS.length) {
        await card(index + 2).waitFor()
        await hasText(statusLine(page), `Order #${code} moved to step ${index + 2}: ${STEPS[index + 1]!.description}.`)
        const moved = await order()
        assert.deepEqual([moved.status, moved.service.position.position_number], ['open', String(index + 2)])
      }
    }
    await hasText(statusLine(page), `Order #${code} is complete and closed.`)
    await card(STEPS.length).waitFor({ state: 'detached' })
    const closed = await order()
    assert.deepEqual([closed.status, closed.service.position.position_number], ['closed', '4'])
    await hasText(page.locator('.board-total'), 'Closed (1)')
    // The other order never moved.
    assert.equal(await page.locator('section.column[data-position="1"] li.order-card').count(), 1)
  })

  it('should show on the order page who did each thing: the staff member by name (D-17)', async () => {
    await page.goto(`/console/#/transaction/${encodeURIComponent(transactionId)}`)
    await heading(page, `Order #${code}`)
    const entries = page.locator('.history .timeline li')
    await waitUntil(
      () => entries.count(),
      (count) => count === 6,
      'six history entries'
    )
    const shown = await entries.evaluateAll((items) =>
      items.map((item) => [
        item.getAttribute('data-type'),
        item.querySelector('strong')?.textContent,
        item.querySelector('.actor')?.textContent
      ])
    )
    assert.deepEqual(shown, [
      ['created', 'Order placed', ' — by Ana Lopez'],
      ['receipt_added', (await history())[1]!.description, ' — by Ana Lopez'],
      ['moved', 'Moved on', ' — by Ana Lopez'],
      ['moved', 'Moved on', ' — by Ana Lopez'],
      ['moved', 'Moved on', ' — by Ana Lopez'],
      ['closed', 'Closed', ' — by Ana Lopez']
    ])
    assert.deepEqual(
      (await history()).map((entry) => [entry.type, entry.actor, entry.by]),
      ['created', 'receipt_added', 'moved', 'moved', 'moved', 'closed'].map((type) => [type, 'staff', 'Ana Lopez'])
    )
    await hasText(page.locator('.summary'), 'closed')
    await page.getByRole('button', { name: 'Reopen order' }).waitFor()
    await screenshot(page, 'console-order.png', { fullPage: true })
    assert.deepEqual(tab.problems, [], 'no script errors or Content-Security-Policy violations')
  })
})
