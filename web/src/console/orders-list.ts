import './orders.css'
import type { CatalogueService, ListResponse, TransactionView } from '../shared/api-types'
import { field, h, replace } from '../shared/dom'
import { money } from '../shared/format'
import type { Console } from './context'
import { shownTime } from './order-summary'
import { alertBox, busy, pageHeading, scrollBox } from './ui'
import { plural } from './words'

const PAGE_SIZE = 25
type Status = 'open' | 'closed' | 'all'

/** The Orders page's address: `#/orders/closed/Wash%20%26%20Fold/2` (status, service, step). */
function ordersPath(status: Status, service = '', step = ''): string {
  const parts = ['#/orders', status]
  if (service !== '') parts.push(encodeURIComponent(service))
  if (service !== '' && step !== '') parts.push(step)
  return parts.join('/')
}

/**
 * Orders (D-57): every order, newest first, filtered by status, service and step, a page at a
 * time. Closed orders can be opened and reopened from here (the board's "Closed (N)" leads here).
 */
export async function renderOrders(c: Console, view: HTMLElement, path: readonly string[]): Promise<void> {
  const status: Status = path[0] === 'closed' || path[0] === 'all' ? path[0] : 'open'
  const { services } = await c.api.catalogue()
  if (!c.current()) return
  const service = services.find((s) => s.service_name.toLowerCase() === (path[1] ?? '').toLowerCase())
  const step = service?.steps.find((s) => s.position_number === path[2])

  const statusSelect = h(
    'select',
    { name: 'status' },
    (['open', 'closed', 'all'] as const).map((value) =>
      h('option', { value, selected: value === status }, value === 'all' ? 'All' : value === 'open' ? 'Open' : 'Closed')
    )
  )
  const serviceSelect = h(
    'select',
    { name: 'service' },
    h('option', { value: '' }, 'All services'),
    services.map((s) => h('option', { value: s.service_name, selected: s === service }, s.service_name))
  )
  const stepSelect = h(
    'select',
    { name: 'step', disabled: service === undefined },
    h('option', { value: '' }, service === undefined ? 'Choose a service first' : 'Any step'),
    (service?.steps ?? []).map((s) =>
      h('option', { value: s.position_number, selected: s === step }, `${s.position_number}: ${s.description}`)
    )
  )
  const apply = () =>
    c.go(
      ordersPath(statusSelect.value as Status, serviceSelect.value, serviceSelect.value === service?.service_name ? stepSelect.value : '')
    )
  for (const select of [statusSelect, serviceSelect, stepSelect]) select.addEventListener('change', apply)

  const results = h('div', { class: 'results' })
  replace(
    view,
    pageHeading('Orders'),
    h(
      'form',
      { class: 'filters card', 'aria-label': 'Filter orders', onsubmit: (event: Event) => event.preventDefault() },
      field('Status', statusSelect),
      field('Service', serviceSelect),
      field('Step', stepSelect)
    ),
    results
  )
  await listPages(c, results, { status, service, step: step?.position_number })
}

interface Filter {
  status: Status
  service: CatalogueService | undefined
  step: string | undefined
}

/** The table of one page at a time; earlier pages' cursors are kept so "Previous" needs no reload. */
async function listPages(c: Console, results: HTMLElement, filter: Filter): Promise<void> {
  const cursors: Array<string | undefined> = [undefined]
  let index = 0

  const load = async (focus: boolean): Promise<void> => {
    const cursor = cursors[index]
    const page: ListResponse = await c.api.list({
      limit: PAGE_SIZE,
      ...(filter.status === 'all' ? {} : { status: filter.status }),
      ...(filter.service === undefined ? {} : { service_name: filter.service.service_name }),
      ...(filter.step === undefined ? {} : { position_number: Number(filter.step) }),
      ...(cursor === undefined ? {} : { cursor })
    })
    const names = await c.names.all(page.transactions.map((t) => t.customer_id))
    if (!c.current()) return
    cursors[index + 1] = page.next_cursor ?? undefined
    const heading = h('h2', { id: 'orders-results', tabindex: -1 }, describe(filter))
    const count = page.transactions.length
    const alert = alertBox()
    const previous = h('button', { type: 'button', disabled: index === 0 }, 'Previous page')
    const next = h('button', { type: 'button', disabled: page.next_cursor === null }, 'Next page')
    const turn = (button: HTMLButtonElement, by: number) =>
      busy(button, alert, async () => {
        index += by
        await load(true).catch((error: unknown) => {
          index -= by
          throw error
        })
      })
    previous.addEventListener('click', () => turn(previous, -1))
    next.addEventListener('click', () => turn(next, 1))
    replace(
      results,
      heading,
      count === 0
        ? h('p', { class: 'empty' }, 'No orders match these filters.')
        : scrollBox(
            table(c, page.transactions, names, alert, () => load(false)),
            'Table of orders'
          ),
      alert,
      h('div', { class: 'pager' }, previous, h('span', {}, `Page ${index + 1} · ${plural(count, 'order')}`), next)
    )
    if (focus) {
      heading.focus()
      c.notify(`Page ${index + 1}: ${plural(count, 'order')}.`)
    }
  }
  await load(false)
}

function describe(filter: Filter): string {
  const what = filter.status === 'all' ? 'All orders' : filter.status === 'open' ? 'Open orders' : 'Closed orders'
  if (filter.service === undefined) return what
  const step = filter.service.steps.find((s) => s.position_number === filter.step)
  return `${what} of ${filter.service.service_name}${step === undefined ? '' : ` at step ${step.position_number}: ${step.description}`}`
}

function table(
  c: Console,
  orders: TransactionView[],
  names: Map<string, string>,
  alert: HTMLElement,
  reload: () => Promise<void>
): HTMLTableElement {
  const headers = ['Order', 'Customer', 'Service', 'Step', 'Pickup', 'Status', 'Total']
  return h(
    'table',
    { class: 'orders-table', 'aria-labelledby': 'orders-results' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        headers.map((title) => h('th', { scope: 'col', class: title === 'Total' ? 'num' : null }, title)),
        h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions'))
      )
    ),
    h(
      'tbody',
      {},
      orders.map((order) => {
        const code = order.transaction_code
        const position = order.service.position
        let action: HTMLElement | null = null
        if (order.status === 'closed') {
          const reopen = h(
            'button',
            { type: 'button', class: 'small' },
            'Reopen',
            h('span', { class: 'visually-hidden' }, ` order ${code}`)
          )
          reopen.addEventListener('click', () =>
            busy(reopen, alert, async () => {
              await c.api.updateTransaction({ transaction_id: order.transaction_id, status: 'open' })
              await reload()
              document.getElementById('orders-results')?.focus()
              c.notify(`Order #${code} is open again at step ${position.position_number}: ${position.position_description}.`)
            })
          )
          action = reopen
        }
        return h(
          'tr',
          { 'data-transaction': order.transaction_id },
          h('th', { scope: 'row' }, h('a', { href: `#/transaction/${encodeURIComponent(order.transaction_id)}` }, `#${code}`)),
          h('td', { class: 'customer' }, names.get(order.customer_id) ?? ''),
          h('td', {}, order.service.service_name),
          h('td', {}, `${position.position_number}: ${position.position_description}`),
          h('td', {}, shownTime(order.pickup_date, order.pickup_time)),
          h('td', {}, h('span', { class: `badge ${order.status}` }, order.status)),
          h('td', { class: 'num' }, money(order.total)),
          h('td', {}, action)
        )
      })
    )
  )
}
