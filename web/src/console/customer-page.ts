import type { CustomerRecord, TransactionView } from '../shared/api-types'
import { h, replace } from '../shared/dom'
import { money } from '../shared/format'
import type { Console } from './context'
import { cardSection } from './customer-card'
import { detailsSection } from './customer-details'
import { newOrderSection, newOrderTitle } from './customer-order'
import { busy, pageHeading, scrollBox, zoneNote } from './ui'

/** The customer's name for headings: first and last name, or the e-mail while they have none. */
function displayName(record: CustomerRecord): string {
  return `${record.first_name} ${record.last_name}`.trim() || record.email
}

/** One customer: every field editable (D-32), a card (D-34), a new order, and their orders (D-57). */
export async function renderCustomerPage(c: Console, view: HTMLElement, customerId: string): Promise<void> {
  const [record, stats, first] = await Promise.all([
    c.api.customer(customerId),
    c.api.stats(),
    c.api.list({ customer_id: customerId, limit: 20 })
  ])
  if (!c.current()) return
  const services = stats.service_stats.map((s) => s.service[0]?.service_name ?? '').filter((name) => name !== '')
  const heading = pageHeading(displayName(record))
  const onSaved = (saved: CustomerRecord) => {
    heading.textContent = displayName(saved)
    const orderTitle = view.querySelector('#new-order-title')
    if (orderTitle !== null) orderTitle.textContent = newOrderTitle(saved)
    c.names.forget(saved.customer_id)
  }
  replace(
    view,
    h('p', { class: 'breadcrumb' }, h('a', { href: '#/customers' }, '← Customers')),
    heading,
    h(
      'div',
      { class: 'two-columns' },
      detailsSection(c, record, onSaved),
      h('div', { class: 'stack' }, newOrderSection(c, record, services), cardSection(c, record))
    ),
    ordersSection(c, customerId, first.transactions, first.next_cursor)
  )
}

function ordersSection(c: Console, customerId: string, orders: TransactionView[], firstCursor: string | null): HTMLElement {
  const rows = h('tbody', {})
  const more = h('button', { type: 'button' }, 'Show more orders')
  let cursor = firstCursor
  const addRows = (page: TransactionView[]) => rows.append(...page.map(orderRow))
  addRows(orders)
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
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'orders-title' },
    h('h2', { id: 'orders-title' }, 'Orders'),
    orders.length === 0
      ? h('p', { class: 'empty' }, 'No orders yet.')
      : [
          zoneNote(),
          scrollBox(
            h(
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
            'Table of orders'
          )
        ],
    more
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
    // D-51: already written in the shop's zone by the server.
    h('td', {}, order.pickup_date_time),
    h('td', { class: 'num' }, money(order.total))
  )
}
