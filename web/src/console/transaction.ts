import type { HistoryEntry, ItemsResponse, TransactionView } from '../shared/api-types'
import { field, h, progress, replace, uid } from '../shared/dom'
import { cents, historyLabel, money, when } from '../shared/format'
import { moveLabel, moveOrder } from './board'
import type { Console } from './context'
import { alertBox, busy, pageHeading } from './ui'

/** The order's history as a timeline, oldest first (D-56). */
function timeline(history: readonly HistoryEntry[]): HTMLOListElement {
  return h(
    'ol',
    { class: 'timeline' },
    history.map((entry) =>
      h(
        'li',
        { 'data-type': entry.type },
        h('time', { datetime: entry.at }, when(entry.at)),
        h('strong', {}, historyLabel(entry.type)),
        h('span', {}, ` · step ${entry.position_number}: ${entry.description}`),
        h('span', { class: 'actor' }, ` · by ${entry.actor}`)
      )
    )
  )
}

/**
 * The transaction panel (issue 9): the full view, the receipt with add and remove from the
 * service's grouped items, the note, the history timeline, and the customer's tracking link.
 */
export async function renderTransaction(c: Console, view: HTMLElement, transactionId: string): Promise<void> {
  const draw = async (focusSelector?: string): Promise<void> => {
    const order = await c.api.transaction(transactionId)
    const [history, items, customerName] = await Promise.all([
      c.api.history(transactionId),
      c.api.items(order.service.service_name).catch((): ItemsResponse | null => null),
      c.names.name(order.customer_id)
    ])
    if (!c.current()) return
    replace(view, ...panel(order, history.history, items, customerName))
    if (focusSelector !== undefined) view.querySelector<HTMLElement>(focusSelector)?.focus()
  }

  const panel = (order: TransactionView, history: HistoryEntry[], items: ItemsResponse | null, customerName: string): HTMLElement[] => {
    const open = order.status === 'open'
    const { position, progress_bar: bar } = order.service
    const moveAlert = alertBox()
    const moveButton = h('button', { type: 'button', class: 'primary move' }, moveLabel(order))
    moveButton.addEventListener('click', () =>
      busy(moveButton, moveAlert, async () => {
        const message = await moveOrder(c, order)
        await draw('.move')
        if (message !== null) c.notify(message)
      })
    )
    const summary = h(
      'section',
      { class: 'card summary', 'aria-labelledby': 'summary-title' },
      h('h2', { id: 'summary-title' }, 'Order'),
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
        h('dd', {}, order.pickup_date_time),
        h('dt', {}, 'Delivery'),
        h('dd', {}, order.delivery_date_time),
        h('dt', {}, 'Total'),
        h('dd', { class: 'total' }, money(order.total))
      ),
      progress(bar.percentage, 'Progress through the steps'),
      open ? h('div', { class: 'actions' }, moveButton, moveAlert) : h('p', {}, 'This order is closed.')
    )
    return [
      h(
        'p',
        { class: 'breadcrumb' },
        h('a', { href: `#/board/${encodeURIComponent(order.service.service_name)}` }, `← Board: ${order.service.service_name}`)
      ),
      pageHeading(`Order #${order.transaction_code}`),
      h(
        'div',
        { class: 'panel-grid' },
        summary,
        receipt(order, items),
        note(order),
        tracking(order),
        h(
          'section',
          { class: 'card history', 'aria-labelledby': 'history-title' },
          h('h2', { id: 'history-title' }, 'History'),
          timeline(history)
        )
      )
    ]
  }

  const receipt = (order: TransactionView, items: ItemsResponse | null): HTMLElement => {
    const alert = alertBox()
    const lines = order.receipt.filter((line) => line.item_id !== null)
    const table =
      lines.length === 0
        ? h('p', { class: 'empty' }, 'No items on the receipt yet.')
        : h(
            'table',
            { class: 'receipt' },
            h('caption', { class: 'visually-hidden' }, 'Receipt'),
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                h('th', { scope: 'col' }, 'Item'),
                h('th', { scope: 'col', class: 'num' }, 'Qty'),
                h('th', { scope: 'col', class: 'num' }, 'Price'),
                h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions'))
              )
            ),
            h(
              'tbody',
              {},
              lines.map((line) => {
                const remove = h(
                  'button',
                  { type: 'button', class: 'small', 'aria-label': `Remove one ${line.title ?? ''}`, disabled: order.status !== 'open' },
                  'Remove one'
                )
                remove.addEventListener('click', () =>
                  busy(remove, alert, async () => {
                    await c.api.removeFromReceipt(order.transaction_id, line.item_id!)
                    await draw('.receipt-card h2')
                    c.notify(`Removed one ${line.title ?? 'item'} from the receipt.`)
                  })
                )
                return h(
                  'tr',
                  { 'data-item': line.item_id },
                  h('th', { scope: 'row' }, line.title),
                  h('td', { class: 'num' }, line.quantity),
                  h('td', { class: 'num' }, money(line.price)),
                  h('td', {}, remove)
                )
              })
            ),
            h(
              'tfoot',
              {},
              h('tr', {}, h('th', { scope: 'row', colspan: 2 }, 'Total'), h('td', { class: 'num total' }, money(order.total)), h('td', {}))
            )
          )
    const catalogue =
      items === null || items.item_group.length === 0
        ? h('p', { class: 'hint' }, 'This service has no items to add.')
        : items.item_group.map((group) =>
            h(
              'div',
              { class: 'item-group' },
              h('h3', {}, group.group),
              h(
                'ul',
                { class: 'add-items' },
                group.item.map((item) => {
                  const add = h(
                    'button',
                    {
                      type: 'button',
                      class: 'small',
                      'data-item': item.item_id,
                      disabled: order.status !== 'open',
                      'aria-label': `Add ${item.title}`
                    },
                    `+ ${item.title} `,
                    h('span', { class: 'price' }, cents(item.price))
                  )
                  add.addEventListener('click', () =>
                    busy(add, alert, async () => {
                      await c.api.addToReceipt(order.transaction_id, item.item_id)
                      await draw(`.add-items button[data-item="${item.item_id}"]`)
                      c.notify(`Added ${item.title} to the receipt.`)
                    })
                  )
                  return h('li', {}, add)
                })
              )
            )
          )
    return h(
      'section',
      { class: 'card receipt-card', 'aria-labelledby': 'receipt-title' },
      h('h2', { id: 'receipt-title', tabindex: -1 }, 'Receipt'),
      table,
      alert,
      h('h3', { class: 'sub' }, order.status === 'open' ? 'Add items' : 'Items (closed orders cannot change)'),
      catalogue
    )
  }

  const note = (order: TransactionView): HTMLElement => {
    const text = h('textarea', { name: 'note', rows: 3, maxlength: 1000 }, order.note)
    const alert = alertBox()
    const save = h('button', { type: 'submit' }, 'Save note')
    const form = h(
      'form',
      { class: 'note-form' },
      field('Note', text, 'Seen by staff and the customer; not on the tracking page.'),
      save,
      alert
    )
    form.addEventListener('submit', (event) => {
      event.preventDefault()
      void busy(save, alert, async () => {
        await c.api.updateNote(order.transaction_id, text.value)
        await draw('.note-form textarea')
        c.notify('The note is saved.')
      })
    })
    return h('section', { class: 'card', 'aria-labelledby': 'note-title' }, h('h2', { id: 'note-title' }, 'Note'), form)
  }

  const tracking = (order: TransactionView): HTMLElement => {
    const alert = alertBox()
    const output = h('div', { class: 'tracking-output' })
    const show = (url: string) => {
      const id = uid('tracking')
      const input = h('input', { id, type: 'text', readonly: true, value: url, class: 'tracking-url' })
      const copy = h('button', { type: 'button', class: 'small' }, 'Copy')
      copy.addEventListener('click', async () => {
        input.select()
        try {
          await navigator.clipboard.writeText(url)
          c.notify('The tracking link is copied.')
        } catch {
          c.notify('Select the link and copy it (Ctrl+C).')
        }
      })
      replace(
        output,
        h('label', { for: id }, 'Tracking link for the customer'),
        h('div', { class: 'inline' }, input, copy, h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, 'Open'))
      )
    }
    const get = h('button', { type: 'button' }, 'Get tracking link')
    get.addEventListener('click', () => busy(get, alert, async () => show((await c.api.trackingLink(order.transaction_id)).tracking_url)))
    const renew = h('button', { type: 'button' }, 'Replace link')
    renew.addEventListener('click', () =>
      busy(renew, alert, async () => {
        show((await c.api.renewTrackingLink(order.transaction_id)).tracking_url)
        c.notify('A new tracking link replaces the old one; the old link no longer works.')
      })
    )
    return h(
      'section',
      { class: 'card', 'aria-labelledby': 'tracking-title' },
      h('h2', { id: 'tracking-title' }, 'Tracking page'),
      h('p', { class: 'hint' }, 'A link for the customer: the service, the progress and the timeline, nothing else about them.'),
      h('div', { class: 'inline' }, get, renew),
      output,
      alert
    )
  }

  await draw()
}
