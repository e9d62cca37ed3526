import { field, h } from '../shared/dom'
import type { Console } from './context'
import { fieldErrors } from './field-errors'
import { alertBox, busy, inputText } from './ui'

/** A new customer (D-31): e-mail and ZIP code, and a name if it is known already. */
export function newCustomerForm(c: Console): HTMLElement {
  const email = h('input', { type: 'email', name: 'email', autocomplete: 'off', required: true, maxlength: 254, spellcheck: 'false' })
  const zip = h('input', {
    type: 'text',
    name: 'zip',
    inputmode: 'numeric',
    autocomplete: 'off',
    required: true,
    maxlength: 10,
    pattern: '[0-9]{5}(-[0-9]{4})?'
  })
  const name = h('input', { type: 'text', name: 'name', autocomplete: 'off', maxlength: 201 })
  const alert = alertBox()
  const errors = fieldErrors(alert, [
    { control: email, label: 'E-mail', pointers: ['/email'], codes: { email_taken: 'Another customer has this e-mail already.' } },
    { control: zip, label: 'ZIP code', pointers: ['/zip'], codes: { unknown_zip: 'This ZIP code is not a US ZIP code we know.' } },
    { control: name, label: 'Name', pointers: ['/customer/customer_name'] }
  ])
  const save = h('button', { type: 'submit', class: 'primary' }, 'Create customer')
  const form = h(
    'form',
    { novalidate: true },
    field('E-mail', email),
    field('ZIP code', zip, 'Five digits; the city and state come from it.'),
    field('Name (optional)', name, 'First name, a space, then the last name.'),
    save,
    alert
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    errors.clear()
    if (inputText(email) === '') return errors.mark(email, 'Give the e-mail address.')
    if (!/^\d{5}(-\d{4})?$/.test(inputText(zip))) return errors.mark(zip, 'A ZIP code is five digits (or ZIP+4, 12345-6789).')
    void busy(
      save,
      null,
      async () => {
        const created = await c.api.createCustomer(inputText(email), inputText(zip))
        const where = `#/customers/${encodeURIComponent(created.customer_id)}`
        if (inputText(name) !== '') {
          try {
            await c.api.updateCustomer({ customer_id: created.customer_id, customer_name: inputText(name) })
          } catch {
            // The customer exists: their page shows them, and the name can be given there.
            return c.go(where, `Customer ${created.email} is created; their name was not saved, so give it below.`)
          }
        }
        c.go(where, `Customer ${created.email} is created.`)
      },
      (error) => errors.show(error)
    )
  })
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'new-customer-title' },
    h('h2', { id: 'new-customer-title' }, 'New customer'),
    form
  )
}
