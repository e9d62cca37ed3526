import type { ItemsResponse, ReceiptLine } from '../shared/api-types'
import { field, h } from '../shared/dom'
import { cents, money } from '../shared/format'
import { fieldErrors } from './field-errors'
import type { OrderPage } from './order-summary'
import { alertBox, busy } from './ui'

/** The receipt: its lines with "Remove one", and a form adding 1 to 999 of an item at once (D-54). */
export function receiptCard(page: OrderPage, items: ItemsResponse | null): HTMLElement {
  const { order } = page
  const open = order.status === 'open'
  const alert = alertBox()
  const lines = order.receipt.filter((line) => line.item_id !== null)
  return h(
    'section',
    { class: 'card receipt-card', 'aria-labelledby': 'receipt-title' },
    h('h2', { id: 'receipt-title', tabindex: -1 }, 'Receipt'),
    lines.length === 0 ? h('p', { class: 'empty' }, 'No items on the receipt yet.') : receiptTable(page, lines, alert),
    alert,
    h('h3', { class: 'sub' }, 'Add items'),
    open ? addForm(page, items) : h('p', { class: 'hint' }, 'A closed order’s receipt cannot change; reopen the order first.')
  )
}

function receiptTable(page: OrderPage, lines: ReceiptLine[], alert: HTMLElement): HTMLTableElement {
  const { c, order } = page
  return h(
    'table',
    { class: 'receipt' },
    h('caption', { class: 'visually-hidden' }, 'Receipt lines'),
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
        const title = line.title ?? 'item'
        const remove = h(
          'button',
          { type: 'button', class: 'small', 'data-item': line.item_id, disabled: order.status !== 'open' },
          'Remove one',
          h('span', { class: 'visually-hidden' }, ` ${title}`)
        )
        remove.addEventListener('click', () =>
          busy(remove, alert, async () => {
            await c.api.removeFromReceipt(order.transaction_id, line.item_id!)
            const left = Number(line.quantity ?? '1') - 1
            await page.redraw(
              left > 0 ? `Removed one ${title}; ${left} left on the receipt.` : `Removed ${title} from the receipt.`,
              left > 0 ? `.receipt button[data-item="${line.item_id}"]` : '#receipt-title'
            )
          })
        )
        return h(
          'tr',
          { 'data-item': line.item_id },
          h('th', { scope: 'row' }, title),
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
}

/** The item last added to each order, chosen again when the page is drawn anew. */
const lastItem = new Map<string, string>()

function addForm(page: OrderPage, items: ItemsResponse | null): HTMLElement {
  const { c, order } = page
  if (items === null || items.item_group.length === 0) return h('p', { class: 'hint' }, 'This service has no items to add.')
  const select = h(
    'select',
    { name: 'item_id' },
    items.item_group.map((group) =>
      h(
        'optgroup',
        { label: group.group },
        group.item.map((item) =>
          h(
            'option',
            { value: item.item_id, selected: lastItem.get(order.transaction_id) === item.item_id },
            `${item.title} (${cents(item.price)})`
          )
        )
      )
    )
  )
  const quantity = h('input', {
    type: 'number',
    name: 'quantity',
    value: 1,
    min: 1,
    max: 999,
    step: 1,
    inputmode: 'numeric',
    class: 'quantity'
  })
  const alert = alertBox()
  const add = h('button', { type: 'submit', class: 'primary' }, 'Add to receipt')
  const form = h(
    'form',
    { class: 'add-item-form', novalidate: true },
    h('div', { class: 'inline' }, field('Item', select), field('Quantity', quantity), add),
    alert
  )
  const errors = fieldErrors(alert, [
    { control: select, label: 'The item', pointers: ['/item_id'] },
    { control: quantity, label: 'The quantity', pointers: ['/quantity'] }
  ])
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    errors.clear()
    const count = Number(quantity.value)
    if (!Number.isInteger(count) || count < 1 || count > 999) {
      errors.mark(quantity, 'A quantity is a whole number from 1 to 999.')
      return
    }
    const item = items.item_group.flatMap((g) => g.item).find((i) => i.item_id === select.value)
    void busy(
      add,
      null,
      async () => {
        await c.api.addToReceipt(order.transaction_id, select.value, count)
        lastItem.set(order.transaction_id, select.value)
        await page.redraw(`Added ${count} × ${item?.title ?? 'item'} to the receipt.`, '.add-item-form select')
      },
      (error) => errors.show(error)
    )
  })
  return form
}
