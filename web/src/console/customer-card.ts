import type { CustomerRecord } from '../shared/api-types'
import { field, h } from '../shared/dom'
import type { Console } from './context'
import { fieldErrors } from './field-errors'
import { alertBox, busy } from './ui'

/** "Card on file" when the record says the customer has one; nothing otherwise. */
function cardStatus(record: CustomerRecord): string {
  return record.card_on_file === true ? 'Card on file' : ''
}

/**
 * Saving a card (D-34): all five fields go together; nothing of a card is ever shown back, and the
 * inputs are emptied as soon as it is saved.
 */
export function cardSection(c: Console, record: CustomerRecord): HTMLElement {
  // autocomplete off: the browser must not offer the staff member's own saved cards.
  const input = (name: string, maxlength: number, numeric: boolean) =>
    h('input', { type: 'text', name, autocomplete: 'off', maxlength, spellcheck: 'false', inputmode: numeric ? 'numeric' : false })
  const name = input('cc-name', 100, false)
  const number = input('cc-number', 23, true)
  const expiry = input('cc-expiry', 7, true)
  const cvv = input('cc-cvv', 4, true)
  const zip = input('cc-zip', 5, true)
  const inputs = [name, number, expiry, cvv, zip]
  const status = h('p', { class: 'card-on-file' }, cardStatus(record))
  const alert = alertBox()
  const at = (key: string) => [`/customer/creditcard/${key}`]
  const errors = fieldErrors(alert, [
    { control: name, label: 'Name on the card', pointers: at('cc_name') },
    { control: number, label: 'Card number', pointers: at('cc_number') },
    { control: expiry, label: 'Expiry', pointers: at('cc_expiration') },
    { control: cvv, label: 'Security code', pointers: at('cc_cvv') },
    { control: zip, label: 'Billing ZIP code', pointers: at('cc_zip') }
  ])
  const save = h('button', { type: 'submit', class: 'primary' }, 'Save card')
  const form = h(
    'form',
    { novalidate: true, class: 'card-form' },
    field('Name on the card', name),
    field('Card number', number, '12 to 19 digits; spaces are fine.'),
    h(
      'div',
      { class: 'field-row' },
      field('Expiry', expiry, 'MM/YYYY, e.g. 04/2028.'),
      field('Security code', cvv, '3 or 4 digits.'),
      field('Billing ZIP code', zip, 'Five digits.')
    ),
    save,
    alert
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    errors.clear()
    const missing = inputs.find((control) => control.value.trim() === '')
    if (missing !== undefined) return errors.mark(missing, 'All five card fields are needed together.')
    if (!/^\d{1,2}\/\d{4}$/.test(expiry.value.trim())) return errors.mark(expiry, 'Write the expiry as MM/YYYY, e.g. 04/2028.')
    const [month = '', year = ''] = expiry.value.trim().split('/')
    void busy(
      save,
      null,
      async () => {
        const saved = await c.api.updateCustomer({
          customer_id: record.customer_id,
          creditcard: {
            cc_name: name.value.trim(),
            cc_number: number.value.replace(/[\s-]/g, ''),
            cc_expiration: `${month.padStart(2, '0')}/${year}`,
            cc_cvv: cvv.value.trim(),
            cc_zip: zip.value.trim()
          }
        })
        status.textContent = cardStatus(saved)
        c.notify('The card is saved.')
      },
      (error) => errors.show(error)
    ).finally(() => {
      // Card data stays in the page no longer than the request; after a refusal only the
      // security code goes, so a typo can be corrected without typing the rest again.
      if (alert.textContent === '') for (const control of inputs) control.value = ''
      else cvv.value = ''
    })
  })
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'card-title' },
    h('h2', { id: 'card-title' }, 'Payment card'),
    status,
    h('p', { class: 'hint' }, 'A saved card is never shown again: type a new one here to replace it.'),
    form
  )
}
