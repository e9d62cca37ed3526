import type { BoardOrder, BoardResponse, BoardStep } from '../shared/api-types'
import { h } from '../shared/dom'
import { shopTime } from '../shared/time-zone'
import { moveLabel } from './board-move'
import { duration, epochSeconds, plural } from './words'

/** How long an order has been past its step's expected minutes (D-48), for its badge. */
function overdueText(order: BoardOrder, expectedMinutes: number | null, now = Date.now()): string {
  const entered = epochSeconds(order.entered_at)
  if (expectedMinutes === null || entered === undefined) return 'Overdue'
  const late = (now / 1000 - entered) / 60 - expectedMinutes
  return late > 0 ? `Overdue by ${duration(late)}` : 'Overdue'
}

/** Pickup in shop time, short for the days around today: "today 9:05 AM", else the full date and time. */
function pickupText(order: BoardOrder, now: number): string {
  const at = epochSeconds(order.pickup_at)
  if (at === undefined) return order.pickup_date_time
  const full = shopTime.format(at)
  const day = shopTime.formatDate(at)
  if (!full.startsWith(day)) return full
  const time = full.slice(day.length).replace(/^,?\s*/, '')
  const today = Math.floor(now / 1000)
  const near = [
    ['today', today],
    ['tomorrow', today + 86_400],
    ['yesterday', today - 86_400]
  ] as const
  const word = near.find(([, when]) => shopTime.formatDate(when) === day)?.[0]
  return word === undefined ? full : `${word} ${time}`
}

/** One compact card; its move button carries what a move needs (D-55), read by the board's one click handler. */
function card(order: BoardOrder, step: BoardStep, totalSteps: number, now: number): HTMLLIElement {
  const position = Number(step.position_number)
  const code = order.transaction_code
  const overdue = order.overdue ? h('span', { class: 'badge overdue' }, overdueText(order, step.expected_minutes, now)) : null
  return h(
    'li',
    { class: order.overdue ? 'order-card is-overdue' : 'order-card', 'data-transaction': order.transaction_id, 'data-code': code },
    h(
      'div',
      { class: 'card-head' },
      h('h3', {}, h('a', { href: `#/transaction/${encodeURIComponent(order.transaction_id)}`, 'aria-label': `Order ${code}` }, `#${code}`)),
      overdue
    ),
    h('p', { class: 'customer' }, order.customer_name === '' ? 'No name' : order.customer_name),
    h('p', { class: 'pickup' }, h('span', { class: 'label' }, 'Pickup '), pickupText(order, now)),
    h(
      'button',
      {
        type: 'button',
        class: 'move',
        'data-transaction': order.transaction_id,
        'data-customer': order.customer_id,
        'data-code': code,
        'data-position': position,
        // Which card's button it is, for a screen reader going from button to button.
        'aria-label': `${moveLabel(step.button_title, position, totalSteps)}: order ${code}`
      },
      moveLabel(step.button_title, position, totalSteps)
    )
  )
}

/** The count under a step's heading: "3 open orders", or with a filter "1 matching order" (`open_count` counts what the filter keeps). */
const countText = (step: BoardStep, filtered: boolean): string => plural(step.open_count, filtered ? 'matching order' : 'open order')

/** One column per step in step order; each scrolls on its own. */
export function boardColumns(board: BoardResponse, filtered: boolean, now = Date.now()): DocumentFragment {
  const fragment = document.createDocumentFragment()
  const total = board.steps.length
  board.steps.forEach((step, index) => {
    const headingId = `step-${step.position_number}-title`
    const overdue = step.orders.filter((o) => o.overdue).length
    const expected = step.expected_minutes === null ? null : `Expected ${duration(step.expected_minutes)}`
    fragment.append(
      h(
        'section',
        { class: `column shade-${index % 2 === 0 ? 'd' : 'l'}`, 'aria-labelledby': headingId, 'data-position': step.position_number },
        h(
          'header',
          {},
          h('p', { class: 'step-number' }, `Step ${step.position_number}`, expected === null ? null : ` · ${expected}`),
          h('h2', { id: headingId, tabindex: -1 }, step.description),
          h(
            'p',
            { class: 'count', 'data-count': step.open_count },
            countText(step, filtered),
            overdue > 0 ? h('span', { class: 'overdue-count' }, ` · ${overdue} overdue`) : null
          )
        ),
        step.orders.length === 0
          ? h('p', { class: 'empty' }, filtered ? 'No matching orders' : 'No open orders')
          : h(
              'ol',
              { class: 'cards', 'aria-labelledby': headingId },
              step.orders.map((order) => card(order, step, total, now))
            )
      )
    )
  })
  return fragment
}
