import './orders.css'
import type { CatalogueService, ItemsResponse } from '../shared/api-types'
import { h, replace } from '../shared/dom'
import type { Console } from './context'
import { detailsCard, serviceCard } from './order-details'
import { timeline } from './order-history'
import { receiptCard } from './order-receipt'
import { type OrderPage, summaryCard } from './order-summary'
import { trackingCard } from './order-tracking'
import { pageHeading } from './ui'

/**
 * The order page: the order at a glance with move, close and reopen; pickup, delivery and note;
 * a change of service; the receipt; the tracking link; and the history with who did what (D-56).
 */
export async function renderTransaction(c: Console, view: HTMLElement, transactionId: string): Promise<void> {
  const draw = async (message = '', focus?: string): Promise<void> => {
    const order = await c.api.transaction(transactionId)
    const [history, items, catalogue, customerName] = await Promise.all([
      c.api.history(transactionId),
      c.api.items(order.service.service_name).catch((): ItemsResponse | null => null),
      c.api.catalogue().then(
        (answer) => answer.services,
        (): CatalogueService[] => []
      ),
      c.names.name(order.customer_id)
    ])
    if (!c.current()) return
    const page: OrderPage = { c, order, redraw: draw }
    const service = order.service.service_name
    replace(
      view,
      h(
        'p',
        { class: 'breadcrumb' },
        h('a', { href: `#/board/${encodeURIComponent(service)}` }, `← Board: ${service}`),
        ' · ',
        h('a', { href: '#/orders' }, 'All orders')
      ),
      pageHeading(`Order #${order.transaction_code}`),
      h(
        'div',
        { class: 'panel-grid' },
        summaryCard(page, customerName),
        detailsCard(page),
        receiptCard(page, items),
        serviceCard(page, catalogue),
        trackingCard(c, order.transaction_id),
        h(
          'section',
          { class: 'card history', 'aria-labelledby': 'history-title' },
          h('h2', { id: 'history-title' }, 'History'),
          timeline(history.history)
        )
      )
    )
    if (focus !== undefined) view.querySelector<HTMLElement>(focus)?.focus()
    if (message !== '') c.notify(message)
  }
  await draw()
}
