import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Locator, Page } from 'playwright-core'
import { hasText, heading, launchBrowser, navLink, openTab, screenshot, signIn, skip, statusLine, type Tab } from './support/browser.js'
import { seedCustomer, seedOrder } from './support/seed.js'
import { type E2eServer, startE2eServer } from './support/server.js'
import { ensureWebBuild } from './support/web-build.js'

// The catalogue in the console (D-41, D-42, D-45, D-47, D-48): a service made, its steps added,
// edited (description, button, messages, expected minutes) and removed, renamed while an order is
// at it, and its items added, edited and removed; each change checked through the API.

interface CatalogueStep {
  position_number: string
  description: string
  button_title: string
  events: Array<{ event: string }>
  expected_minutes: number | null
}

describe('the catalogue in the console (Chromium)', { skip }, () => {
  let e2e: E2eServer
  let browser: Browser
  let tab: Tab
  let page: Page
  let customerId = ''

  const services = async () =>
    (await e2e.api<{ services: Array<{ service_name: string; image_title: string; steps: CatalogueStep[] }> }>('/v1/catalogue/services'))
      .services
  const steps = async (name: string) => (await services()).find((s) => s.service_name === name)?.steps ?? []
  const stepForm = (position: number): Locator => page.locator(`li.step[data-position="${position}"]`)
  const addStepForm = () => page.locator('form.add-step')

  async function addStep(step: { description: string; button: string; events: string[]; minutes?: string; position?: number }) {
    const form = addStepForm()
    await form.getByLabel('Description').fill(step.description)
    await form.getByLabel('Button title').fill(step.button)
    await form.getByLabel('Expected minutes').fill(step.minutes ?? '')
    for (const event of step.events) await form.getByLabel(event, { exact: true }).check()
    if (step.position !== undefined) await form.getByLabel('Position (optional)').fill(String(step.position))
    await form.getByRole('button', { name: 'Add step' }).click()
    await hasText(statusLine(page), `“${step.description}” is added.`)
  }

  before(async () => {
    ensureWebBuild()
    e2e = await startE2eServer()
    const staff = await e2e.staff('Ana Lopez')
    customerId = await seedCustomer(e2e, 'Grace Hopper')
    browser = await launchBrowser()
    tab = await openTab(browser, e2e)
    page = tab.page
    await signIn(page, staff)
  })

  after(async () => {
    await browser?.close()
    await e2e?.stop()
  })

  it('should create a service with its first step, messages and expected minutes', async () => {
    await navLink(page, 'Catalogue').click()
    await heading(page, 'Catalogue')
    await page.getByLabel('Service name').fill('Wash')
    await page.getByLabel('Step 1 description').fill('Picked up')
    await page.getByLabel('Step 1 button title').fill('Start washing')
    await page.getByLabel('Step 1 expected minutes (optional)').fill('30')
    await page.getByLabel('e-mail', { exact: true }).check()
    await page.getByRole('button', { name: 'Create service' }).click()
    await heading(page, 'Wash')
    await hasText(statusLine(page), 'The service Wash is created.')
    assert.deepEqual(await steps('Wash'), [
      { position_number: '1', description: 'Picked up', button_title: 'Start washing', events: [{ event: 'email' }], expected_minutes: 30 }
    ])
  })

  it('should add steps at the end and at a position, and remove one after asking', async () => {
    await addStep({ description: 'Washing', button: 'Start drying', events: ['text message'] })
    await addStep({ description: 'Drying', button: 'Hand over', events: ['tracking (trak)'], minutes: '45' })
    await addStep({ description: 'Ironing', button: 'Iron', events: [], position: 2 })
    assert.deepEqual(
      (await steps('Wash')).map((s) => s.description),
      ['Picked up', 'Ironing', 'Washing', 'Drying']
    )
    await hasText(stepForm(2).locator('h3'), 'Step 2: Ironing')
    await stepForm(2).getByRole('button', { name: 'Remove step 2' }).click()
    const dialog = page.getByRole('dialog', { name: 'Remove step 2, “Ironing”?' })
    await dialog.getByRole('button', { name: 'Remove the step' }).click()
    await hasText(statusLine(page), 'Step 2 is removed; the steps after it moved up.')
    assert.equal(await page.locator('li.step').count(), 3)
    assert.deepEqual(
      (await steps('Wash')).map((s) => [s.description, s.button_title, s.events.map((e) => e.event).join(), s.expected_minutes]),
      [
        ['Picked up', 'Start washing', 'email', 30],
        ['Washing', 'Start drying', 'text', null],
        ['Drying', 'Hand over', 'trak', 45]
      ]
    )
  })

  it('should refuse to remove a step an order is at, saying why', async () => {
    await seedOrder(e2e, { customer_id: customerId, service_name: 'Wash' })
    await page.reload()
    await heading(page, 'Wash')
    await stepForm(1).getByRole('button', { name: 'Remove step 1' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Remove the step' }).click()
    await hasText(stepForm(1).locator('[role="alert"]'), 'Orders are at this step (open or closed), so it cannot be removed.')
    assert.equal((await steps('Wash')).length, 3)
  })

  it('should rename the service; its order keeps it under the new name', async () => {
    await page.getByLabel('Service name').fill('Wash & Fold')
    await page.getByLabel('Image title').fill('wash_fold')
    await page.getByRole('button', { name: 'Save name' }).click()
    await heading(page, 'Wash & Fold')
    await hasText(statusLine(page), 'The service is saved as Wash & Fold.')
    assert.match(decodeURIComponent(page.url()), /#\/catalogue\/Wash & Fold$/)
    const renamed = (await services()).map((s) => [s.service_name, s.image_title])
    assert.deepEqual(renamed, [['Wash & Fold', 'wash_fold']])
    const orders = (await e2e.api('/v1/transaction/list', { customer_id: customerId })).transactions
    assert.deepEqual(
      orders.map((o: { service: { service_name: string } }) => o.service.service_name),
      ['Wash & Fold']
    )
  })

  it("should edit a step's description, button, messages and expected minutes", async () => {
    const form = stepForm(2)
    await form.getByLabel('Description').fill('Washing and drying')
    await form.getByLabel('Button title').fill('Start folding')
    await form.getByLabel('text message', { exact: true }).uncheck()
    await form.getByLabel('e-mail', { exact: true }).check()
    await form.getByLabel('tracking (trak)', { exact: true }).check()
    await form.getByLabel('Expected minutes').fill('90')
    await form.getByRole('button', { name: 'Save step 2' }).click()
    await hasText(statusLine(page), 'Step 2 “Washing and drying” is saved.')
    await hasText(stepForm(2).locator('h3'), 'Step 2: Washing and drying')
    assert.deepEqual((await steps('Wash & Fold'))[1], {
      position_number: '2',
      description: 'Washing and drying',
      button_title: 'Start folding',
      events: [{ event: 'email' }, { event: 'trak' }],
      expected_minutes: 90
    })
    // Emptied, the expected minutes become none.
    await stepForm(2).getByLabel('Expected minutes').fill('')
    await stepForm(2).getByRole('button', { name: 'Save step 2' }).click()
    await hasText(statusLine(page), 'Step 2 “Washing and drying” is saved.')
    assert.equal((await steps('Wash & Fold'))[1]!.expected_minutes, null)
  })

  it('should add items in groups, change a price and remove an item', async () => {
    const add = async (title: string, price: string, group: string) => {
      const form = page.locator('form.add-item')
      await form.getByLabel('Title').fill(title)
      await form.getByLabel('Price').fill(price)
      await form.getByLabel('Group (optional)').fill(group)
      await form.getByRole('button', { name: 'Add item' }).click()
      await hasText(statusLine(page), `${title} (`)
    }
    await add('Shirt', '2.50', 'Tops')
    await add('Duvet', '18', 'Bedding')
    await add('Sock', '0.75', 'Tops')
    await page.getByRole('button', { name: 'Remove Sock' }).click()
    await hasText(statusLine(page), 'Sock is removed from the catalogue; receipts keep it.')
    await page.getByLabel('Price of Duvet in dollars').fill('19.50')
    await page.getByRole('button', { name: 'Save Duvet' }).click()
    await hasText(statusLine(page), 'Duvet is saved.')
    await hasText(page.getByRole('heading', { name: /^Items/ }), 'Items (2)')
    const items = await e2e.api(`/v1/service/${encodeURIComponent('Wash & Fold')}`)
    assert.deepEqual(
      items.item_group.map((g: { group: string; item: Array<{ title: string; price: string }> }) => [
        g.group,
        g.item.map((i) => `${i.title} ${i.price}`)
      ]),
      [
        ['Tops', ['Shirt 250']],
        ['Bedding', ['Duvet 1950']]
      ]
    )
    await screenshot(page, 'console-catalogue.png', { fullPage: true })
    assert.deepEqual(tab.problems, [], 'no script errors or Content-Security-Policy violations')
  })
})
