import type { TransactionView } from '../shared/api-types'
import { h, progress } from '../shared/dom'
import { money } from '../shared/format'
import { shopTime } from '../shared/time-zone'
import { moveLabel, moveOrder } from './board-move'
import type { Console } from './context'
import { alertBox, busy } from './ui'

/** What each part of the order page gets: the console, the order as read, and a way to show it again. */
export interface OrderPage {
  readonly c: Console
  readonly order: TransactionView
  /** Reads the order again, draws the page, focuses `focus` (a selector) and says `message`. */
  redraw(message: string, focus?: string): Promise<void>
}

/** A date and time of the full view (shop wall time, D-51) as the console shows times. */
export function shownTime(date: string, time: string): string {
  const epoch = shopTime.toEpoch(`${date}T${time.slice(0, 5)}`)
  return epoch === undefined ? `${date} ${time}` : shopTime.format(epoch)
}

/** The order at a glance, with the move and close or reopen buttons. */
export function summaryCard(page: OrderPage, customerName: string): HTMLElement {
  const { c, order } = page
  const open = order.status === 'open'
  const { position, progress_bar: bar } = order.service
  const alert = alertBox()
  const actions: HTMLElement[] = []
  if (open) {
    const move = h(
      'button',
      { type: 'button', class: 'primary move' },
      moveLabel(position.button_title, Number(position.position_number), bar.total_steps)
    )
    move.addEventListener('click', () =>
      busy(move, alert, async () => {
        const message = await moveOrder(c, {
          transaction_id: order.transaction_id,
          transaction_code: order.transaction_code,
          customer_id: order.customer_id,
          position_number: Number(position.position_number)
        })
        await page.redraw(message ?? '', '.summary .move, .summary .reopen')
      })
    )
    actions.push(move)
  }
  const status = h('button', { type: 'button', class: open ? 'close-order' : 'primary reopen' }, open ? 'Close order' : 'Reopen order')
  status.addEventListener('click', () =>
    busy(status, alert, async () => {
      await c.api.updateTransaction({ transaction_id: order.transaction_id, status: open ? 'closed' : 'open' })
      await page.redraw(
        open
          ? `Order #${order.transaction_code} is closed; reopen it here if that was a mistake.`
          : `Order #${order.transaction_code} is open again at step ${position.position_number}.`,
        open ? '.summary .reopen' : '.summary .close-order'
      )
    })
  )
  actions.push(status)
  return h(
    'section',
    { class: 'card summary', 'aria-labelledby': 'summary-title' },
    h('h2', { id: 'summary-title', tabindex: -1 }, 'Order'),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Customer'),
      h('dd', {}, h('a', { href: `#/customers/${encodeURIComponent(order.customer_id)}` }, customerName)),
      h('dt', {}, 'Service'),
      h('dd', {}, order.service.service_name),
      h('dt', {}, 'Step'),
      h('dd', { class: 'step' }, `${position.position_number} of ${bar.total_steps}: ${position.position_description}`),
      h('dt', {}, 'Status'),
      h('dd', {}, h('span', { class: `badge ${order.status}` }, order.status)),
      h('dt', {}, 'Pickup'),
      h('dd', {}, shownTime(order.pickup_date, order.pickup_time)),
      h('dt', {}, 'Delivery'),
      h('dd', {}, shownTime(order.delivery_date, order.delivery_time)),
      h('dt', {}, 'Total'),
      h('dd', { class: 'total' }, money(order.total))
    ),
    progress(bar.percentage, 'Progress through the steps'),
    h('div', { class: 'actions inline' }, actions),
    alert
  )
}
