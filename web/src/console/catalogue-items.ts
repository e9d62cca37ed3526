import type { ItemsResponse } from '../shared/api-types'
import { field, h } from '../shared/dom'
import { cents, parseDollars } from '../shared/format'
import type { Redraw } from './catalogue-service'
import type { Console } from './context'
import { fieldErrors } from './field-errors'
import { alertBox, busy, inputText } from './ui'

const PRICE_RULE = 'A price is dollars and cents, e.g. 2.50.'

/** One item: its title and price edited in place, or removed (receipts keep it, D-45). */
function itemLine(c: Console, item: ItemsResponse['item_group'][number]['item'][number], alert: HTMLElement, redraw: Redraw) {
  const title = h('input', { type: 'text', value: item.title, maxlength: 500, 'aria-label': `Title of ${item.title}` })
  const price = h('input', {
    type: 'text',
    value: (Number(item.price) / 100).toFixed(2),
    inputmode: 'decimal',
    class: 'price-input',
    'aria-label': `Price of ${item.title} in dollars`
  })
  const save = h('button', { type: 'button', class: 'small' }, 'Save', h('span', { class: 'visually-hidden' }, ` ${item.title}`))
  const remove = h('button', { type: 'button', class: 'small danger' }, 'Remove', h('span', { class: 'visually-hidden' }, ` ${item.title}`))
  save.addEventListener('click', () => {
    const amount = parseDollars(price.value)
    if (amount === undefined) {
      alert.textContent = PRICE_RULE
      price.focus()
      return
    }
    void busy(save, alert, async () => {
      await c.api.updateItem({ item_id: item.item_id, title: inputText(title), price: amount })
      await redraw(`${inputText(title)} is saved.`, '#items-title')
    })
  })
  remove.addEventListener('click', () =>
    busy(remove, alert, async () => {
      await c.api.removeItem(item.item_id)
      await redraw(`${item.title} is removed from the catalogue; receipts keep it.`, '#items-title')
    })
  )
  return h(
    'li',
    { 'data-item': item.item_id },
    h('span', { class: 'item-title' }, item.title),
    h('span', { class: 'price' }, cents(item.price)),
    h('span', { class: 'edit' }, title, price, save, remove)
  )
}

/** The service's items by group, and a form adding one (D-45, D-46). */
export function itemsSection(c: Console, name: string, items: ItemsResponse, redraw: Redraw): HTMLElement {
  const alert = alertBox()
  const groups = items.item_group.map((group) =>
    h(
      'div',
      { class: 'item-group' },
      h('h3', {}, group.group),
      h(
        'ul',
        { class: 'items' },
        group.item.map((item) => itemLine(c, item, alert, redraw))
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
    { class: 'add-item', novalidate: true, 'aria-labelledby': 'add-item-title' },
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
  const errors = fieldErrors(addAlert, [
    { control: title, label: 'The title', pointers: ['/title'] },
    { control: price, label: 'The price', pointers: ['/price'] },
    { control: group, label: 'The group', pointers: ['/group'] },
    { control: image, label: 'The image file name', pointers: ['/image_url'] }
  ])
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    errors.clear()
    if (inputText(title) === '') return errors.mark(title, 'Give the item a title, e.g. “Shirt”.')
    const amount = parseDollars(price.value)
    if (amount === undefined) return errors.mark(price, PRICE_RULE)
    void busy(
      add,
      null,
      async () => {
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
        )
      },
      (error) => errors.show(error)
    )
  })
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'items-title' },
    h('h2', { id: 'items-title', tabindex: -1 }, `Items (${items.item.item_count})`),
    groups.length === 0 ? h('p', { class: 'empty' }, 'No items yet.') : groups,
    alert,
    h('h3', { id: 'add-item-title', class: 'sub' }, 'Add an item'),
    form
  )
}
