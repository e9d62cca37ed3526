import type { ItemsResponse, ServiceView, StatsEntry } from '../shared/api-types'
import { field, h, replace } from '../shared/dom'
import { cents, parseDollars } from '../shared/format'
import type { Console } from './context'
import { alertBox, busy, eventsFieldset, inputText, pageHeading } from './ui'

/** The catalogue (issue 9): the services and a form for a new one, or one service's steps and items. */
export async function renderCatalogue(c: Console, view: HTMLElement, serviceName?: string): Promise<void> {
  if (serviceName === undefined) await renderServices(c, view)
  else await renderService(c, view, serviceName)
}

const servicePath = (name: string) => `#/catalogue/${encodeURIComponent(name)}`

async function renderServices(c: Console, view: HTMLElement): Promise<void> {
  const stats = await c.api.stats()
  if (!c.current()) return
  const services = stats.service_stats.map((s) => s.service).filter((entries) => entries.length > 0)
  replace(
    view,
    pageHeading('Catalogue'),
    h(
      'div',
      { class: 'two-columns' },
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'services-title' },
        h('h2', { id: 'services-title' }, 'Services'),
        services.length === 0
          ? h('p', { class: 'empty' }, 'No services yet.')
          : h(
              'ul',
              { class: 'services' },
              services.map((entries) => {
                const first = entries[0]!
                return h(
                  'li',
                  {},
                  h('a', { href: servicePath(first.service_name ?? '') }, first.service_name),
                  h(
                    'span',
                    { class: 'hint' },
                    ` · ${entries.length} ${entries.length === 1 ? 'step' : 'steps'} · ${first.total_orders ?? 0} orders`
                  )
                )
              })
            )
      ),
      newServiceForm(c)
    )
  )
}

function newServiceForm(c: Console): HTMLElement {
  const name = h('input', { type: 'text', name: 'service_name', required: true, maxlength: 100, autocomplete: 'off' })
  const description = h('input', { type: 'text', name: 'description', required: true, maxlength: 500, autocomplete: 'off' })
  const button = h('input', { type: 'text', name: 'button_title', maxlength: 500, autocomplete: 'off' })
  const events = eventsFieldset('Events when an order enters step 1')
  const alert = alertBox()
  const save = h('button', { type: 'submit', class: 'primary' }, 'Create service')
  const form = h(
    'form',
    { novalidate: true },
    field('Service name', name),
    field('Step 1 description', description, 'What step 1 is, e.g. “Picked up”.'),
    field('Step 1 button title', button, 'The board button that moves an order on from step 1, e.g. “Start washing”.'),
    events.element,
    save,
    alert
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    if (inputText(name) === '' || inputText(description) === '') {
      alert.textContent = 'Give the service a name and describe its first step.'
      ;(inputText(name) === '' ? name : description).focus()
      return
    }
    void busy(save, alert, async () => {
      await c.api.createService({
        service_name: inputText(name),
        description: inputText(description),
        button_title: inputText(button),
        events: events.values()
      })
      c.go(servicePath(inputText(name)), `The service ${inputText(name)} is created.`)
    })
  })
  return h('section', { class: 'card', 'aria-labelledby': 'new-service-title' }, h('h2', { id: 'new-service-title' }, 'New service'), form)
}

async function renderService(c: Console, view: HTMLElement, serviceName: string): Promise<void> {
  const stats = await c.api.stats()
  const entries = stats.service_stats.map((s) => s.service).find((e) => e[0]?.service_name?.toLowerCase() === serviceName.toLowerCase())
  if (entries === undefined) {
    replace(
      view,
      pageHeading('No such service'),
      h('p', {}, `There is no service named “${serviceName}”. `, h('a', { href: '#/catalogue' }, 'Back to the catalogue.'))
    )
    return
  }
  const name = entries[0]!.service_name!
  const [steps, items] = await Promise.all([Promise.all(entries.map((_entry, index) => c.api.step(name, index + 1))), c.api.items(name)])
  if (!c.current()) return
  const redraw = (message: string, focus: string) => async () => {
    await renderService(c, view, name)
    view.querySelector<HTMLElement>(focus)?.focus()
    c.notify(message)
  }
  replace(
    view,
    h(
      'p',
      { class: 'breadcrumb' },
      h('a', { href: '#/catalogue' }, '← Catalogue'),
      ' · ',
      h('a', { href: `#/board/${encodeURIComponent(name)}` }, 'Board')
    ),
    pageHeading(name),
    stepsSection(c, name, steps, entries, redraw),
    itemsSection(c, name, items, redraw)
  )
}

type Redraw = (message: string, focus: string) => () => Promise<void>

function stepsSection(c: Console, name: string, steps: ServiceView[], entries: StatsEntry[], redraw: Redraw): HTMLElement {
  const alert = alertBox()
  const rows = steps.map((step, index) => {
    const position = Number(step.position.position_number)
    const count = entries[index]?.position_count ?? 0
    const remove = h(
      'button',
      {
        type: 'button',
        class: 'small danger',
        'aria-label': `Remove step ${position}: ${step.position.position_description}`,
        disabled: steps.length === 1
      },
      'Remove'
    )
    remove.addEventListener('click', () =>
      busy(remove, alert, async () => {
        await c.api.removeStep(name, position)
        await redraw(`Step ${position} is removed; the steps after it moved up.`, '#steps-title')()
      })
    )
    return h(
      'tr',
      { 'data-position': position },
      h('td', { class: 'num' }, String(position)),
      h('th', { scope: 'row' }, step.position.position_description),
      h('td', {}, step.position.button_title || '—'),
      h('td', {}, step.position.events.map((e) => e.event).join(', ') || '—'),
      h('td', { class: 'num' }, String(count)),
      h('td', {}, remove)
    )
  })
  const description = h('input', { type: 'text', name: 'description', required: true, maxlength: 500, autocomplete: 'off' })
  const button = h('input', { type: 'text', name: 'button_title', maxlength: 500, autocomplete: 'off' })
  const position = h('input', { type: 'number', name: 'position_number', min: 1, max: steps.length + 1, step: 1 })
  const events = eventsFieldset('Events when an order enters this step')
  const addAlert = alertBox()
  const add = h('button', { type: 'submit', class: 'primary' }, 'Add step')
  const form = h(
    'form',
    { class: 'add-step', novalidate: true },
    field('Description', description),
    field('Button title', button, 'The board button that moves an order on from this step.'),
    field('Position (optional)', position, `1 to ${steps.length + 1}; empty adds it at the end.`),
    events.element,
    add,
    addAlert
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    if (inputText(description) === '') {
      addAlert.textContent = 'Describe the step, e.g. “Washing”.'
      description.focus()
      return
    }
    void busy(add, addAlert, async () => {
      const at = inputText(position)
      const added = await c.api.addStep({
        service_name: name,
        description: inputText(description),
        button_title: inputText(button),
        events: events.values(),
        ...(at === '' ? {} : { position_number: Number(at) })
      })
      await redraw(`Step ${added.position} “${added.description}” is added.`, '.add-step input')()
    })
  })
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'steps-title' },
    h('h2', { id: 'steps-title', tabindex: -1 }, 'Steps'),
    h(
      'table',
      { class: 'steps' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['#', 'Description', 'Button title', 'Events', 'Orders', ''].map((title) => h('th', { scope: 'col' }, title))
        )
      ),
      h('tbody', {}, rows)
    ),
    alert,
    h('h3', { class: 'sub' }, 'Add a step'),
    form
  )
}

function itemsSection(c: Console, name: string, items: ItemsResponse, redraw: Redraw): HTMLElement {
  const alert = alertBox()
  const groups = items.item_group.map((group) =>
    h(
      'div',
      { class: 'item-group' },
      h('h3', {}, group.group),
      h(
        'ul',
        { class: 'items' },
        group.item.map((item) => {
          const title = h('input', { type: 'text', value: item.title, maxlength: 500, 'aria-label': `Title of ${item.title}` })
          const price = h('input', {
            type: 'text',
            value: (Number(item.price) / 100).toFixed(2),
            inputmode: 'decimal',
            class: 'price-input',
            'aria-label': `Price of ${item.title} in dollars`
          })
          const save = h('button', { type: 'button', class: 'small' }, 'Save')
          const remove = h('button', { type: 'button', class: 'small danger', 'aria-label': `Remove ${item.title}` }, 'Remove')
          save.addEventListener('click', () => {
            const amount = parseDollars(price.value)
            if (amount === undefined) {
              alert.textContent = 'A price is dollars and cents, e.g. 2.50.'
              price.focus()
              return
            }
            void busy(save, alert, async () => {
              await c.api.updateItem({ item_id: item.item_id, title: inputText(title), price: amount })
              await redraw(`${inputText(title)} is saved.`, '#items-title')()
            })
          })
          remove.addEventListener('click', () =>
            busy(remove, alert, async () => {
              await c.api.removeItem(item.item_id)
              await redraw(`${item.title} is removed from the catalogue; receipts keep it.`, '#items-title')()
            })
          )
          return h(
            'li',
            { 'data-item': item.item_id },
            h('span', { class: 'item-title' }, item.title),
            h('span', { class: 'price' }, cents(item.price)),
            h('span', { class: 'edit' }, title, price, save, remove)
          )
        })
      )
    )
  )
  const title = h('input', { type: 'text', name: 'title', required: true, maxlength: 500, autocomplete: 'off' })
  const price = h('input', { type: 'text', name: 'price', required: true, inputmode: 'decimal', autocomplete: 'off' })
  const group = h('input', { type: 'text', name: 'group', maxlength: 100, autocomplete: 'off', list: 'item-groups' })
  const image = h('input', { type: 'text', name: 'image_url', maxlength: 500, autocomplete: 'off' })
  const addAlert = alertBox()
  const add = h('button', { type: 'submit', class: 'primary' }, 'Add item')
  const form = h(
    'form',
    { class: 'add-item', novalidate: true },
    field('Title', title),
    field('Price', price, 'Dollars and cents, e.g. 2.50.'),
    field('Group (optional)', group, 'Items are listed by group; default General.'),
    h(
      'datalist',
      { id: 'item-groups' },
      items.item_group.map((g) => h('option', { value: g.group }))
    ),
    field('Image file name (optional)', image),
    add,
    addAlert
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const amount = parseDollars(price.value)
    if (amount === undefined) {
      addAlert.textContent = 'A price is dollars and cents, e.g. 2.50.'
      price.focus()
      return
    }
    void busy(add, addAlert, async () => {
      const groupName = inputText(group)
      const created = await c.api.createItem({
        service_name: name,
        title: inputText(title),
        price: amount,
        ...(groupName === '' ? {} : { group: groupName }),
        ...(inputText(image) === '' ? {} : { image_url: inputText(image) })
      })
      // The answer is the spec's Item, without its group (D-45): the group is the one sent, or the default.
      await redraw(
        `${created.title} (${cents(created.price)}) is added to ${groupName === '' ? 'General' : groupName}.`,
        '.add-item input'
      )()
    })
  })
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'items-title' },
    h('h2', { id: 'items-title', tabindex: -1 }, `Items (${items.item.item_count})`),
    groups.length === 0 ? h('p', { class: 'empty' }, 'No items yet.') : groups,
    alert,
    h('h3', { class: 'sub' }, 'Add an item'),
    form
  )
}
