import type { CustomerRecord } from '../shared/api-types'
import { field, h } from '../shared/dom'
import { shopTime } from '../shared/time-zone'
import type { Console } from './context'
import { fieldErrors } from './field-errors'
import { alertBox, busy, zoneNote } from './ui'

/** The new-order section's heading: the customer's first name, or their e-mail while they have none. */
export const newOrderTitle = (record: CustomerRecord) => `New order for ${record.first_name || record.email}`

/** A new order for this customer: pickup and delivery typed in shop time (D-50, D-51). */
export function newOrderSection(c: Console, record: CustomerRecord, services: string[]): HTMLElement {
  const title = newOrderTitle(record)
  if (services.length === 0)
    return h(
      'section',
      { class: 'card', 'aria-labelledby': 'new-order-title' },
      h('h2', { id: 'new-order-title' }, title),
      h('p', {}, 'There is no service yet: ', h('a', { href: '#/catalogue' }, 'create one in the catalogue'), ' first.')
    )
  const service = h(
    'select',
    { name: 'service' },
    services.map((name) => h('option', { value: name }, name))
  )
  const pickup = h('input', { type: 'datetime-local', name: 'pickup', required: true, value: shopTime.inputValueInDays(1, 9) })
  const delivery = h('input', { type: 'datetime-local', name: 'delivery', required: true, value: shopTime.inputValueInDays(3, 9) })
  const notes = h('textarea', { name: 'notes', rows: 2, maxlength: 1000 })
  const alert = alertBox()
  const errors = fieldErrors(alert, [
    { control: service, label: 'Service', pointers: ['/service_name'] },
    { control: pickup, label: 'Pickup', pointers: ['/pickup_timestamp'] },
    { control: delivery, label: 'Delivery', pointers: ['/delivery_timestamp'] },
    { control: notes, label: 'Note', pointers: ['/notes'] }
  ])
  const save = h('button', { type: 'submit', class: 'primary' }, 'Create order')
  const form = h(
    'form',
    { novalidate: true },
    field('Service', service),
    zoneNote(),
    h('div', { class: 'field-row' }, field('Pickup', pickup), field('Delivery', delivery)),
    field('Note (optional)', notes),
    save,
    alert
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    errors.clear()
    const pickupAt = shopTime.toEpoch(pickup.value)
    const deliveryAt = shopTime.toEpoch(delivery.value)
    if (pickupAt === undefined) return errors.mark(pickup, 'Give the pickup date and time.')
    if (deliveryAt === undefined) return errors.mark(delivery, 'Give the delivery date and time.')
    if (deliveryAt < pickupAt) return errors.mark(delivery, 'Delivery cannot be before pickup.')
    void busy(
      save,
      null,
      async () => {
        const created = await c.api.createTransaction({
          customer_id: record.customer_id,
          service_name: service.value,
          pickup_timestamp: pickupAt,
          delivery_timestamp: deliveryAt,
          notes: notes.value
        })
        c.go(`#/transaction/${encodeURIComponent(created.transaction_id)}`, `Order ${created.transaction_code} is created.`)
      },
      (error) => errors.show(error)
    )
  })
  return h('section', { class: 'card', 'aria-labelledby': 'new-order-title' }, h('h2', { id: 'new-order-title' }, title), form)
}
