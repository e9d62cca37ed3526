import type { CatalogueService } from '../shared/api-types'
import { field, h } from '../shared/dom'
import { shopTime } from '../shared/time-zone'
import { confirmDialog } from './confirm-dialog'
import { fieldErrors } from './field-errors'
import type { OrderPage } from './order-summary'
import { alertBox, busy } from './ui'

/** A full-view date and time (shop wall time, D-51) as a `datetime-local` value. */
const inputValue = (date: string, time: string) => `${date}T${time.slice(0, 5)}`

/** Pickup, delivery (in shop time, D-51) and the note: only what changed is sent (D-53). */
export function detailsCard(page: OrderPage): HTMLElement {
  const { c, order } = page
  const pickupWas = inputValue(order.pickup_date, order.pickup_time)
  const deliveryWas = inputValue(order.delivery_date, order.delivery_time)
  const pickup = h('input', { type: 'datetime-local', name: 'pickup', value: pickupWas, required: true })
  const delivery = h('input', { type: 'datetime-local', name: 'delivery', value: deliveryWas, required: true })
  const note = h('textarea', { name: 'note', rows: 3, maxlength: 1000 }, order.note)
  const alert = alertBox()
  const save = h('button', { type: 'submit', class: 'primary' }, 'Save changes')
  const form = h(
    'form',
    { class: 'details-form', novalidate: true },
    h('p', { class: 'hint' }, `${shopTime.label}.`),
    h('div', { class: 'inline times' }, field(`Pickup (${shopTime.zone})`, pickup), field(`Delivery (${shopTime.zone})`, delivery)),
    field('Note', note, 'Seen by staff and the customer; not on the tracking page.'),
    save,
    alert
  )
  const errors = fieldErrors(alert, [
    { control: pickup, label: 'Pickup', pointers: ['/pickup_timestamp'] },
    { control: delivery, label: 'Delivery', pointers: ['/delivery_timestamp'] },
    { control: note, label: 'The note', pointers: ['/note', '/notes'] }
  ])
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    errors.clear()
    const body: { transaction_id: string; pickup_timestamp?: number; delivery_timestamp?: number; note?: string } = {
      transaction_id: order.transaction_id
    }
    const pickupAt = shopTime.toEpoch(pickup.value)
    const deliveryAt = shopTime.toEpoch(delivery.value)
    if (deliveryAt === undefined) errors.mark(delivery, 'Enter the delivery date and time.')
    if (pickupAt === undefined) errors.mark(pickup, 'Enter the pickup date and time.')
    if (pickupAt === undefined || deliveryAt === undefined) return
    if (deliveryAt < pickupAt) {
      errors.mark(delivery, 'Delivery cannot be before pickup.')
      return
    }
    if (pickup.value !== pickupWas) body.pickup_timestamp = pickupAt
    if (delivery.value !== deliveryWas) body.delivery_timestamp = deliveryAt
    if (note.value !== order.note) body.note = note.value
    if (Object.keys(body).length === 1) {
      c.notify('Nothing has changed.')
      return
    }
    void busy(
      save,
      null,
      async () => {
        await c.api.updateTransaction(body)
        await page.redraw('The changes are saved.', '.details-form button[type=submit]')
      },
      (error) => errors.show(error)
    )
  })
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'details-title' },
    h('h2', { id: 'details-title' }, 'Pickup, delivery and note'),
    form
  )
}

/** Moves the order to another service, which restarts it at step 1 there (D-53), after asking. */
export function serviceCard(page: OrderPage, services: readonly CatalogueService[]): HTMLElement {
  const { c, order } = page
  const current = order.service.service_name
  const others = services.filter((s) => s.service_name.toLowerCase() !== current.toLowerCase())
  const heading = h('h2', { id: 'service-title' }, 'Service')
  if (others.length === 0) {
    return h(
      'section',
      { class: 'card', 'aria-labelledby': 'service-title' },
      heading,
      h('p', { class: 'hint' }, 'There is no other service to change to.')
    )
  }
  const select = h(
    'select',
    { name: 'service_name' },
    others.map((s) => h('option', { value: s.service_name }, s.service_name))
  )
  const alert = alertBox()
  const change = h('button', { type: 'submit' }, 'Change service…')
  const form = h(
    'form',
    { class: 'service-form', novalidate: true },
    field('New service', select, `Now: ${current}. The order restarts at step 1 of the new service.`),
    change,
    alert
  )
  const errors = fieldErrors(alert, [{ control: select, label: 'The service', pointers: ['/service_name'] }])
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    const target = others.find((s) => s.service_name === select.value)
    if (target === undefined) return
    const first = target.steps[0]
    const here = order.service.position
    const messages = first !== undefined && first.events.length > 0 ? ' The customer gets that step’s messages.' : ''
    const ok = await confirmDialog(
      `Change order #${order.transaction_code} to ${target.service_name}?`,
      `It leaves ${current} (step ${here.position_number}: ${here.position_description}) and restarts at step 1 of ${target.service_name}${first === undefined ? '' : `: ${first.description}`}.${messages}`,
      'Change and restart at step 1'
    )
    if (!ok) return
    void busy(
      change,
      null,
      async () => {
        await c.api.updateTransaction({ transaction_id: order.transaction_id, service_name: target.service_name })
        await page.redraw(`Order #${order.transaction_code} is now ${target.service_name}, at step 1.`, '#summary-title')
      },
      (error) => errors.show(error)
    )
  })
  return h('section', { class: 'card', 'aria-labelledby': 'service-title' }, heading, form)
}
