import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { assertAccessible } from './support/axe.js'
import { hasText, heading, launchBrowser, openTab, screenshot, signIn, skip, statusLine, type Tab, waitUntil } from './support/browser.js'
import { inBatches, seedCustomer, seedOrder, seedService } from './support/seed.js'
import { type E2eServer, startE2eServer } from './support/server.js'
import { ensureWebBuild } from './support/web-build.js'

// The board on a busy day: 200 open orders of one service. Each column scrolls on its own inside
// a page of bounded height; counts agree with the cards; overdue orders come first and are marked
// (D-48); the filter finds by code and by customer name; the closed orders are a link away (D-57).

const SERVICE = 'Wash & Fold'
const HOUR = 3_600_000
const FIRST = ['Ada', 'Grace', 'Alan', 'Katherine', 'Edsger', 'Barbara', 'Donald', 'Frances', 'John', 'Radia']
const LAST = ['Lovelace', 'Hopper', 'Turing']
// Open orders per step (200 in all), and the orders closed besides.
const AT_STEP = [80, 60, 40, 20]
const CLOSED = 3

interface BoardAnswer {
  closed_count: number
  steps: Array<{
    open_count: number
    orders: Array<{ transaction_code: string; customer_name: string; overdue: boolean; entered_at: string }>
  }>
}

describe('the board with 200 open orders (Chromium)', { skip }, () => {
  let e2e: E2eServer
  let browser: Browser
  let tab: Tab
  let page: Page
  let olga = ''
  const late: string[] = []

  const board = (filter?: string) => e2e.api<BoardAnswer>('/v1/transaction/board', { service_name: SERVICE, ...(filter ? { filter } : {}) })
  const column = (position: number) => page.locator(`section.column[data-position="${position}"]`)
  const shownCodes = (position: number) =>
    column(position)
      .locator('li.order-card')
      .evaluateAll((cards) => cards.map((c) => c.getAttribute('data-code')))
  const filter = () => page.getByLabel('Find by order code or customer')

  before(async () => {
    ensureWebBuild()
    e2e = await startE2eServer({ timeZone: 'America/Chicago' })
    const staff = await e2e.staff('Ana Lopez')
    await seedService(e2e, SERVICE, [
      { description: 'Picked up', button: 'Start washing', expected_minutes: 60 },
      { description: 'Washing', button: 'Start folding', expected_minutes: 120 },
      { description: 'Folding', button: 'Out for delivery' },
      { description: 'Delivered', button: 'Hand over' }
    ])
    const names = FIRST.flatMap((first) => LAST.map((last) => `${first} ${last}`))
    const customers = await inBatches(names, 10, (name) => seedCustomer(e2e, name))
    olga = await seedCustomer(e2e, 'Olga Van Der Berg')
    // Overdue through the server's clock: orders placed hours "ago" have been at step 1 since then.
    for (const [hoursAgo, count] of [
      [5, 2],
      [4, 3]
    ] as const) {
      e2e.clock.shift(-hoursAgo * HOUR)
      const made = await inBatches(Array.from({ length: count }), count, (_, i) =>
        seedOrder(e2e, { customer_id: customers[i]!, service_name: SERVICE, hours: 30 + i })
      )
      late.push(...made.map((o) => o.transaction_code))
    }
    // Two moved to step 2 three hours ago: past its 120 minutes.
    e2e.clock.shift(-3 * HOUR)
    await inBatches([0, 1], 2, (i) => seedOrder(e2e, { customer_id: customers[10 + i]!, service_name: SERVICE, moves: 1 }))
    e2e.clock.shift(0)
    const plan = AT_STEP.flatMap((count, step) =>
      Array.from({ length: step === 0 ? count - 5 : step === 1 ? count - 2 : count }, () => step)
    )
    await inBatches([...plan, ...Array.from({ length: CLOSED }, () => -1)], 12, async (step, i) => {
      const customer = i % 25 === 0 ? olga : customers[i % customers.length]!
      const made = await seedOrder(e2e, { customer_id: customer, service_name: SERVICE, hours: 2 + (i % 90), moves: Math.max(step, 0) })
      if (step === -1) await e2e.api('/v1/transaction/update', { transaction_id: made.transaction_id, status: 'closed' })
    })
    browser = await launchBrowser()
    tab = await openTab(browser, e2e)
    page = tab.page
    await signIn(page, staff)
  })

  after(async () => {
    await browser?.close()
    await e2e?.stop()
  })

  it('should keep the page one screen high while each column scrolls its own cards', async () => {
    await heading(page, `Board: ${SERVICE}`)
    await waitUntil(
      () => page.locator('li.order-card').count(),
      (count) => count === 200,
      '200 cards on the board'
    )
    const [pageHeight, viewport] = await page.evaluate<[number, number]>('[document.documentElement.scrollHeight, window.innerHeight]')
    const lists = await page.locator('section.column .cards').evaluateAll((all) =>
      all.map((list) => ({
        scroll: list.scrollHeight,
        client: list.clientHeight,
        overflow: list.ownerDocument.defaultView.getComputedStyle(list).overflowY
      }))
    )
    const sizes = { page: pageHeight, viewport, lists }
    assert.ok(sizes.page <= sizes.viewport, `the page is ${sizes.page} px high in a ${sizes.viewport} px window`)
    for (const [index, list] of sizes.lists.entries()) {
      assert.equal(list.overflow, 'auto', `column ${index + 1} scrolls`)
      assert.ok(list.scroll > list.client, `column ${index + 1} holds more than it shows (${list.scroll} > ${list.client})`)
    }
    // Scrolling one column moves neither the page nor the others.
    await column(1)
      .locator('.cards')
      .evaluate((list) => list.scrollTo(0, 2000))
    const after = {
      page: await page.evaluate<number>('window.scrollY'),
      tops: await page.locator('section.column .cards').evaluateAll((all) => all.map((list) => list.scrollTop as number))
    }
    assert.equal(after.page, 0)
    assert.ok(after.tops[0]! > 0)
    assert.deepEqual(after.tops.slice(1), [0, 0, 0])
    await column(1)
      .locator('.cards')
      .evaluate((list) => list.scrollTo(0, 0))
    await screenshot(page, 'console-board.png')
  })

  it('should show as many cards as each count says, and as the board answer holds', async () => {
    const answer = await board()
    assert.deepEqual(
      answer.steps.map((s) => s.open_count),
      AT_STEP
    )
    for (const [index, step] of answer.steps.entries()) {
      const count = column(index + 1).locator('.count')
      assert.equal(await count.getAttribute('data-count'), String(AT_STEP[index]))
      await hasText(count, `${AT_STEP[index]} open orders`)
      assert.deepEqual(
        await shownCodes(index + 1),
        step.orders.map((o) => o.transaction_code)
      )
    }
    await hasText(page.locator('.board-total'), '200 open orders · 7 overdue · Closed (3)')
  })

  it('should put overdue orders first, the longest past due first, and mark them', async () => {
    const answer = await board()
    const [first, second] = answer.steps
    assert.deepEqual(
      first!.orders.map((o) => o.overdue),
      [...Array(5).fill(true), ...Array(75).fill(false)]
    )
    assert.deepEqual(
      second!.orders.map((o) => o.overdue),
      [...Array(2).fill(true), ...Array(58).fill(false)]
    )
    // Placed five hours ago before those placed four hours ago.
    assert.deepEqual(new Set(first!.orders.slice(0, 2).map((o) => o.transaction_code)), new Set(late.slice(0, 2)))
    assert.deepEqual(new Set(first!.orders.slice(2, 5).map((o) => o.transaction_code)), new Set(late.slice(2)))
    const marks = (position: number) =>
      column(position)
        .locator('li.order-card')
        .evaluateAll((cards) =>
          cards.map((c) => [c.classList.contains('is-overdue'), c.querySelector('.badge.overdue')?.textContent ?? ''])
        )
    const shown = await marks(1)
    assert.deepEqual(
      shown.map(([marked]) => marked),
      first!.orders.map((o) => o.overdue)
    )
    for (const [, badge] of shown.slice(0, 5)) assert.match(String(badge), /^Overdue by \d+ h/)
    assert.deepEqual(
      (await marks(2)).map(([marked]) => marked),
      second!.orders.map((o) => o.overdue)
    )
    await hasText(column(1).locator('.count'), '80 open orders · 5 overdue')
    await hasText(column(1).locator('.step-number'), 'Step 1 · Expected 1 h')
    assert.equal(await column(3).locator('.badge.overdue').count(), 0)
  })

  it('should filter the board by order code and by customer name', async () => {
    const code = (await board()).steps[2]!.orders[7]!.transaction_code
    await filter().fill(code)
    await hasText(statusLine(page), `1 order matches “${code}”.`)
    assert.equal(await page.locator('li.order-card').count(), 1)
    assert.deepEqual(await shownCodes(3), [code])
    await hasText(column(3).locator('.count'), '1 matching order')
    await hasText(column(1).locator('.empty'), 'No matching orders')
    await hasText(page.locator('.board-total'), `1 open order matches “${code}”`)

    const theirs = await board('van der')
    const expected = theirs.steps.flatMap((s) => s.orders.map((o) => o.transaction_code))
    assert.ok(expected.length > 1)
    assert.ok(theirs.steps.every((s) => s.orders.every((o) => o.customer_name === 'Olga Van Der Berg')))
    await filter().fill('van der')
    await hasText(statusLine(page), `${expected.length} orders match “van der”.`)
    const shown = await page
      .locator('li.order-card')
      .evaluateAll((cards) => cards.map((c) => [c.getAttribute('data-code'), c.querySelector('.customer')?.textContent]))
    assert.deepEqual(
      shown,
      expected.map((c) => [c, 'Olga Van Der Berg'])
    )
    await filter().fill('')
    await hasText(statusLine(page), 'Showing all 200 open orders.')
    assert.equal(await page.locator('li.order-card').count(), 200)
  })

  it('should pass axe with 200 cards on the board', async () => {
    await assertAccessible(page, 'the busy board')
  })

  it('should reach the closed orders from the board', async () => {
    await page.getByRole('link', { name: 'Closed (3)' }).click()
    await heading(page, 'Orders')
    await page.getByRole('heading', { name: `Closed orders of ${SERVICE}`, level: 2 }).waitFor()
    const rows = page.locator('table.orders-table tbody tr')
    await waitUntil(
      () => rows.count(),
      (count) => count === CLOSED,
      'three closed orders'
    )
    assert.equal(await page.getByRole('button', { name: /^Reopen order \d{8}$/ }).count(), CLOSED)
    for (const badge of await rows.locator('.badge').allTextContents()) assert.equal(badge, 'closed')
    assert.deepEqual(tab.problems, [], 'no script errors or Content-Security-Policy violations')
  })
})
