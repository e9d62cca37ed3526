import type { StatsEntry, TransactionView } from '../shared/api-types'
import { field, h, replace, uid } from '../shared/dom'
import { money } from '../shared/format'
import { ApiError } from '../shared/http'
import type { Console } from './context'
import { pageHeading } from './ui'

/** The label of the button that moves an order on from its step. */
export function moveLabel(order: TransactionView): string {
  const { position, progress_bar: bar } = order.service
  if (position.button_title.trim() !== '') return position.button_title
  return Number(position.position_number) >= bar.total_steps ? 'Complete' : 'Move on'
}

/**
 * D-55 from the console: moves the order on from the step the user saw. A second tap, or a
 * colleague who moved it first, gets 409 `position_changed` and nothing moves. Answers what to
 * tell the user once the page shows the new state, or null when the failure was shown already.
 */
export async function moveOrder(c: Console, order: TransactionView): Promise<string | null> {
  const code = order.transaction_code
  try {
    const moved = await c.api.move(order)
    const step = moved.service.position
    return moved.status === 'closed'
      ? `Order ${code} is complete and closed.`
      : `Order ${code} moved to step ${step.position_number}: ${step.position_description}.`
  } catch (error) {
    if (error instanceof ApiError && (error.code === 'position_changed' || error.code === 'transaction_closed')) {
      return `Order ${code} had already been moved on by someone else; this page now shows where it is.`
    }
    c.fail(error)
    return null
  }
}

/**
 * The board (issue 9): one column per step of a service in step order, shaded by `shade`, headed
 * by the step's description and count from the statistics, listing the open orders at that step.
 */
export async function renderBoard(c: Console, view: HTMLElement, requested?: string): Promise<void> {
  const stats = await c.api.stats()
  if (!c.current()) return
  const services = stats.service_stats.map((s) => s.service).filter((entries) => entries.length > 0)
  if (services.length === 0) {
    replace(
      view,
      pageHeading('Board'),
      h('p', {}, 'There are no services yet. ', h('a', { href: '#/catalogue' }, 'Create one in the catalogue.'))
    )
    return
  }
  const names = services.map((entries) => entries[0]!.service_name ?? '')
  const selected = requested === undefined ? names[0]! : names.find((name) => name.toLowerCase() === requested.toLowerCase())
  if (selected === undefined) {
    replace(
      view,
      pageHeading('Board'),
      h('p', { class: 'alert', role: 'alert' }, `There is no service named “${requested}”. `),
      h('a', { href: '#/board' }, 'Show the first service.')
    )
    return
  }

  const select = h(
    'select',
    { name: 'service' },
    names.map((name) => h('option', { value: name, selected: name === selected }, name))
  )
  select.addEventListener('change', () => c.go(`#/board/${encodeURIComponent(select.value)}`))
  const refreshButton = h('button', { type: 'button' }, 'Refresh')
  const columns = h('div', { class: 'board', id: uid('board') })
  const total = h('p', { class: 'board-total' })
  replace(
    view,
    h('div', { class: 'page-head' }, pageHeading('Board'), h('div', { class: 'toolbar' }, field('Service', select), refreshButton)),
    total,
    columns
  )

  /** Reads the counts and the open orders again and redraws the columns; focus follows `focusOn`. */
  const refresh = async (focusOn?: string): Promise<void> => {
    columns.setAttribute('aria-busy', 'true')
    const [latest, orders] = await Promise.all([c.api.stats(), c.api.openOrders(selected)])
    const customerNames = await c.names.all(orders.map((o) => o.customer_id))
    if (!c.current()) return
    const entries = latest.service_stats.map((s) => s.service).find((e) => e[0]?.service_name === selected) ?? []
    total.textContent = `${orders.length} open ${orders.length === 1 ? 'order' : 'orders'} · ${entries[0]?.total_orders ?? 0} in all`
    replace(
      columns,
      entries.map((entry) => column(entry, orders, customerNames))
    )
    columns.removeAttribute('aria-busy')
    const target = focusOn === undefined ? null : columns.querySelector<HTMLElement>(`[data-transaction="${CSS.escape(focusOn)}"] button`)
    if (focusOn !== undefined) (target ?? columns.querySelector<HTMLElement>('h2'))?.focus()
  }

  const column = (entry: StatsEntry, orders: TransactionView[], customerNames: Map<string, string>): HTMLElement => {
    const position = entry.position_number ?? ''
    const here = orders.filter((o) => o.service.position.position_number === position)
    const headingId = uid('step')
    const count = entry.position_count ?? 0
    return h(
      'section',
      { class: `column shade-${entry.shade === 'l' ? 'l' : 'd'}`, 'aria-labelledby': headingId, 'data-position': position },
      h(
        'header',
        {},
        h('p', { class: 'step-number' }, `Step ${position}`),
        h('h2', { id: headingId, tabindex: -1 }, entry.description ?? ''),
        h('p', { class: 'count', 'data-count': count }, `${count} ${count === 1 ? 'order' : 'orders'} at this step`)
      ),
      here.length === 0
        ? h('p', { class: 'empty' }, 'No open orders.')
        : h(
            'ol',
            { class: 'cards' },
            here.map((order) => card(order, customerNames.get(order.customer_id) ?? ''))
          )
    )
  }

  const card = (order: TransactionView, customerName: string): HTMLElement => {
    const codeId = uid('order')
    const button = h('button', { type: 'button', class: 'primary move', 'aria-describedby': codeId }, moveLabel(order))
    button.addEventListener('click', async () => {
      if (button.disabled) return
      button.disabled = true
      const message = await moveOrder(c, order)
      try {
        await refresh(order.transaction_id)
        if (message !== null) c.notify(message)
      } catch (error) {
        c.fail(error)
      }
    })
    return h(
      'li',
      { class: 'order-card', 'data-transaction': order.transaction_id, 'data-code': order.transaction_code },
      h(
        'h3',
        {},
        h(
          'a',
          {
            id: codeId,
            href: `#/transaction/${encodeURIComponent(order.transaction_id)}`,
            'aria-label': `Order ${order.transaction_code}`
          },
          `#${order.transaction_code}`
        )
      ),
      h('p', { class: 'customer' }, customerName),
      h(
        'dl',
        {},
        h('dt', {}, 'Pickup'),
        h('dd', {}, order.pickup_date_time),
        h('dt', {}, 'Delivery'),
        h('dd', {}, order.delivery_date_time),
        h('dt', {}, 'Total'),
        h('dd', { class: 'total' }, money(order.total))
      ),
      button
    )
  }

  refreshButton.addEventListener('click', async () => {
    refreshButton.disabled = true
    try {
      await refresh()
      c.notify('The board is up to date.')
    } catch (error) {
      c.fail(error)
    } finally {
      refreshButton.disabled = false
    }
  })
  await refresh()
}
