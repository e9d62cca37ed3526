import type { CustomerRecord, TransactionView } from '../shared/api-types'
import { field, h, replace, uid } from '../shared/dom'
import { money } from '../shared/format'
import type { Console } from './context'
import { alertBox, busy, inputText, pageHeading } from './ui'

// The last search, so coming back from a record shows the same hits.
let lastQuery = ''

/** Customers (issue 9): type-ahead search and a new-customer form, or one customer's record. */
export async function renderCustomers(c: Console, view: HTMLElement, customerId?: string): Promise<void> {
  if (customerId === undefined) renderSearch(c, view)
  else await renderRecord(c, view, customerId)
}

function renderSearch(c: Console, view: HTMLElement): void {
  const input = h('input', { type: 'search', name: 'query', autocomplete: 'off', maxlength: 100, value: lastQuery })
  const count = h('p', { class: 'hint', role: 'status', 'aria-live': 'polite' })
  const results = h('ul', { class: 'hits', id: uid('hits') })
  input.setAttribute('aria-controls', results.id)
  let timer: number | undefined
  let asked = 0

  const search = async (): Promise<void> => {
    const query = input.value.trim()
    lastQuery = query
    const ticket = ++asked
    if (query === '') {
      results.replaceChildren()
      count.textContent = ''
      return
    }
    try {
      const { customer } = await c.api.search(query)
      // Only the newest answer is drawn: typing fast never shows an older query's hits.
      if (ticket !== asked || !c.current()) return
      replace(
        results,
        customer.map((hit) =>
          h(
            'li',
            {},
            h(
              'a',
              { href: `#/customers/${encodeURIComponent(hit.customer_id)}` },
              h('strong', {}, hit.customer_name || '(no name)'),
              h('span', { class: 'email' }, ` ${hit.customer_email}`)
            )
          )
        )
      )
      count.textContent =
        customer.length === 0
          ? 'No customer has a name starting so.'
          : `${customer.length} ${customer.length === 1 ? 'customer' : 'customers'} found.`
    } catch (error) {
      if (ticket === asked) c.fail(error, count)
    }
  }
  input.addEventListener('input', () => {
    window.clearTimeout(timer)
    timer = window.setTimeout(() => void search(), 200)
  })
  input.addEventListener('keydown', (event) => {
    // Down arrow moves into the hits; Tab works too.
    if (event.key === 'ArrowDown') {
      results.querySelector<HTMLElement>('a')?.focus()
      event.preventDefault()
    }
  })

  replace(
    view,
    pageHeading('Customers'),
    h(
      'div',
      { class: 'two-columns' },
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'search-title' },
        h('h2', { id: 'search-title' }, 'Find a customer'),
        h(
          'form',
          {
            role: 'search',
            onsubmit: (event: Event) => {
              event.preventDefault()
              void search()
            }
          },
          field('Search by first or last name', input, 'Type the start of a name, e.g. “ada lo”.')
        ),
        count,
        results
      ),
      newCustomerForm(c)
    )
  )
  if (lastQuery !== '') void search()
}

function newCustomerForm(c: Console): HTMLElement {
  const email = h('input', { type: 'email', name: 'email', autocomplete: 'off', required: true, maxlength: 254 })
  const zip = h('input', {
    type: 'text',
    name: 'zip',
    inputmode: 'numeric',
    required: true,
    maxlength: 10,
    pattern: '[0-9]{5}(-[0-9]{4})?'
  })
  const name = h('input', { type: 'text', name: 'name', autocomplete: 'off', maxlength: 201 })
  const alert = alertBox()
  const save = h('button', { type: 'submit', class: 'primary' }, 'Create customer')
  const form = h(
    'form',
    { novalidate: true },
    field('E-mail', email),
    field('ZIP code', zip, 'Five digits; the city and state come from it.'),
    field('Name (optional)', name, 'First name, a space, then the last name.'),
    save,
    alert
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    void busy(save, alert, async () => {
      const created = await c.api.createCustomer(inputText(email), inputText(zip))
      if (inputText(name) !== '') await c.api.renameCustomer(created.customer_id, inputText(name))
      c.go(`#/customers/${encodeURIComponent(created.customer_id)}`, `Customer ${created.email} is created.`)
    })
  })
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'new-customer-title' },
    h('h2', { id: 'new-customer-title' }, 'New customer'),
    form
  )
}

async function renderRecord(c: Console, view: HTMLElement, customerId: string): Promise<void> {
  const [record, stats, first] = await Promise.all([
    c.api.customer(customerId),
    c.api.stats(),
    c.api.list({ customer_id: customerId, limit: 20 })
  ])
  if (!c.current()) return
  const services = stats.service_stats.map((s) => s.service[0]?.service_name ?? '').filter((name) => name !== '')
  const name = `${record.first_name} ${record.last_name}`.trim() || record.email
  const rows = h('tbody', {})
  const more = h('button', { type: 'button' }, 'Show more')
  let cursor = first.next_cursor
  const addRows = (orders: TransactionView[]) => rows.append(...orders.map(orderRow))
  addRows(first.transactions)
  more.hidden = cursor === null
  more.addEventListener('click', () =>
    busy(
      more,
      null,
      async () => {
        if (cursor === null) return
        const page = await c.api.list({ customer_id: customerId, limit: 20, cursor })
        addRows(page.transactions)
        cursor = page.next_cursor
        more.hidden = cursor === null
      },
      (error) => c.fail(error)
    )
  )
  replace(
    view,
    h('p', { class: 'breadcrumb' }, h('a', { href: '#/customers' }, '← Customers')),
    pageHeading(name),
    h(
      'div',
      { class: 'two-columns' },
      h('section', { class: 'card', 'aria-labelledby': 'record-title' }, h('h2', { id: 'record-title' }, 'Record'), facts(record)),
      newOrderForm(c, record, services)
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'orders-title' },
      h('h2', { id: 'orders-title' }, 'Orders'),
      first.transactions.length === 0
        ? h('p', { class: 'empty' }, 'No orders yet.')
        : h(
            'table',
            { class: 'orders' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Order', 'Service', 'Step', 'Status', 'Pickup', 'Total'].map((title) =>
                  h('th', { scope: 'col', class: title === 'Total' ? 'num' : false }, title)
                )
              )
            ),
            rows
          ),
      more
    )
  )
}

function orderRow(order: TransactionView): HTMLTableRowElement {
  const { position, progress_bar: bar } = order.service
  return h(
    'tr',
    { 'data-transaction': order.transaction_id },
    h('th', { scope: 'row' }, h('a', { href: `#/transaction/${encodeURIComponent(order.transaction_id)}` }, `#${order.transaction_code}`)),
    h('td', {}, order.service.service_name),
    h('td', {}, `${position.position_number}/${bar.total_steps} ${position.position_description}`),
    h('td', {}, h('span', { class: `badge ${order.status}` }, order.status)),
    h('td', {}, order.pickup_date_time),
    h('td', { class: 'num' }, money(order.total))
  )
}

function facts(record: CustomerRecord): HTMLDListElement {
  const address = [
    record.address.street,
    record.address.apartment,
    `${record.address.city} ${record.address.state} ${record.address.zipcode}`.trim()
  ]
    .filter((part) => part.trim() !== '')
    .join(', ')
  const pairs: Array<[string, string]> = [
    ['E-mail', record.email],
    ['Phone', record.phone || '—'],
    ['Address', address || '—'],
    ['Preferences', record.preference || '—'],
    ['Customer id', record.customer_id]
  ]
  return h(
    'dl',
    { class: 'facts' },
    pairs.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)])
  )
}

/** `YYYY-MM-DDTHH:MM` of a date in the browser's zone, for datetime-local inputs. */
function localInput(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`
}

function newOrderForm(c: Console, record: CustomerRecord, services: string[]): HTMLElement {
  if (services.length === 0)
    return h('section', { class: 'card' }, h('h2', {}, 'New order'), h('p', {}, 'Create a service in the catalogue first.'))
  const tomorrow = new Date(Date.now() + 24 * 3600_000)
  tomorrow.setHours(9, 0, 0, 0)
  const later = new Date(tomorrow.getTime() + 2 * 24 * 3600_000)
  const service = h(
    'select',
    { name: 'service' },
    services.map((name) => h('option', { value: name }, name))
  )
  const pickup = h('input', { type: 'datetime-local', name: 'pickup', required: true, value: localInput(tomorrow) })
  const delivery = h('input', { type: 'datetime-local', name: 'delivery', required: true, value: localInput(later) })
  const notes = h('textarea', { name: 'notes', rows: 2, maxlength: 1000 })
  const alert = alertBox()
  const save = h('button', { type: 'submit', class: 'primary' }, 'Create order')
  const form = h(
    'form',
    { novalidate: true },
    field('Service', service),
    field('Pickup', pickup),
    field('Delivery', delivery),
    field('Note (optional)', notes),
    save,
    alert
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const seconds = (input: HTMLInputElement) => Math.floor(new Date(input.value).getTime() / 1000)
    if (Number.isNaN(seconds(pickup)) || Number.isNaN(seconds(delivery))) {
      alert.textContent = 'Give a pickup and a delivery date and time.'
      return
    }
    void busy(save, alert, async () => {
      const created = await c.api.createTransaction({
        customer_id: record.customer_id,
        service_name: service.value,
        pickup_timestamp: seconds(pickup),
        delivery_timestamp: seconds(delivery),
        notes: notes.value
      })
      c.go(`#/transaction/${encodeURIComponent(created.transaction_id)}`, `Order ${created.transaction_code} is created.`)
    })
  })
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'new-order-title' },
    h('h2', { id: 'new-order-title' }, `New order for ${record.first_name || record.email}`),
    form
  )
}
