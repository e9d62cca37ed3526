import type { CustomerChanges, CustomerRecord } from '../shared/api-types'
import { field, h } from '../shared/dom'
import type { Console } from './context'
import { fieldErrors } from './field-errors'
import { alertBox, busy } from './ui'

type Control = HTMLInputElement | HTMLTextAreaElement

/** Where the city and state stand: they come from the ZIP code (D-32). */
function placeText(record: CustomerRecord): string {
  const place = `${record.address.city}${record.address.city && record.address.state ? ', ' : ''}${record.address.state}`
  return place === '' ? 'City and state come from the ZIP code.' : `City and state from the ZIP code: ${place}.`
}

/**
 * Every field of a customer, editable (D-32): only what changed is sent, and an emptied field is
 * cleared. Faults are shown beside their inputs (problem `errors[]`, D-20).
 */
export function detailsSection(c: Console, initial: CustomerRecord, onSaved: (record: CustomerRecord) => void): HTMLElement {
  let record = initial
  const text = (name: string, autocomplete: string, maxlength: number, type = 'text') =>
    h('input', { type, name, autocomplete, maxlength, spellcheck: type === 'email' ? 'false' : false })
  const first = text('first-name', 'off', 100)
  const last = text('last-name', 'off', 100)
  const email = text('email', 'off', 254, 'email')
  const phone = text('phone', 'off', 30, 'tel')
  const preference = h('textarea', { name: 'preference', rows: 3, maxlength: 1000 })
  const street = text('street', 'off', 200)
  const apartment = text('apartment', 'off', 200)
  const zip = text('zip', 'off', 10)
  zip.setAttribute('inputmode', 'numeric')
  const alert = alertBox()
  const errors = fieldErrors(alert, [
    { control: first, label: 'Name', pointers: ['/customer/customer_name'] },
    { control: email, label: 'E-mail', pointers: ['/customer/email'], codes: { email_taken: 'Another customer has this e-mail already.' } },
    { control: phone, label: 'Phone', pointers: ['/customer/phone'] },
    { control: preference, label: 'Preferences', pointers: ['/customer/preference', '/customer/preferences'] },
    { control: street, label: 'Street', pointers: ['/customer/address/street'] },
    { control: apartment, label: 'Apartment', pointers: ['/customer/address/apartment'] },
    {
      control: zip,
      label: 'ZIP code',
      pointers: ['/customer/address/zip', '/customer/address/zipcode'],
      codes: { unknown_zip: 'This ZIP code is not a US ZIP code we know.' }
    }
  ])
  const zipField = field('ZIP code', zip, placeText(record))
  const fill = () => {
    const values: Array<[Control, string]> = [
      [first, record.first_name],
      [last, record.last_name],
      [email, record.email],
      [phone, record.phone],
      [preference, record.preference],
      [street, record.address.street],
      [apartment, record.address.apartment],
      [zip, record.address.zipcode]
    ]
    for (const [control, value] of values) control.value = value
    const hint = zipField.querySelector('.hint')
    if (hint !== null) hint.textContent = placeText(record)
  }
  fill()
  const save = h('button', { type: 'submit', class: 'primary' }, 'Save details')
  const form = h(
    'form',
    { novalidate: true, class: 'details-form' },
    h('div', { class: 'field-row' }, field('First name', first, 'One word.'), field('Last name', last)),
    field('E-mail', email),
    field('Phone', phone, '7 to 15 digits; spaces, dots and hyphens are fine.'),
    field('Preferences', preference, 'Anything the shop should remember, e.g. “no starch”.'),
    h(
      'fieldset',
      { class: 'address' },
      h('legend', {}, 'Address'),
      field('Street', street),
      field('Apartment, suite (optional)', apartment),
      zipField
    ),
    save,
    alert
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    errors.clear()
    const given = first.value.trim()
    // D-32 splits the full name at its first space: a first name of two words would be cut.
    if (/\s/.test(given)) return errors.mark(first, 'The first name is one word; put the rest in the last name.')
    if (given === '' && last.value.trim() !== '') return errors.mark(first, 'Give a first name with the last name.')
    const changes = changed(record, { first, last, email, phone, preference, street, apartment, zip })
    if (Object.keys(changes).length === 1) {
      c.notify('Nothing changed.')
      return
    }
    void busy(
      save,
      null,
      async () => {
        record = await c.api.updateCustomer(changes)
        fill()
        onSaved(record)
        c.notify('The details are saved.')
      },
      (error) => errors.show(error)
    )
  })
  return h('section', { class: 'card', 'aria-labelledby': 'details-title' }, h('h2', { id: 'details-title' }, 'Details'), form)
}

/** The update body: the customer id and only the fields whose value differs from the record. */
function changed(
  record: CustomerRecord,
  inputs: Record<'first' | 'last' | 'email' | 'phone' | 'preference' | 'street' | 'apartment' | 'zip', Control>
): CustomerChanges {
  const value = (key: keyof typeof inputs) => inputs[key].value.trim()
  const changes: CustomerChanges = { customer_id: record.customer_id }
  if (value('first') !== record.first_name || value('last') !== record.last_name)
    changes.customer_name = `${value('first')} ${value('last')}`.trim()
  if (value('email') !== record.email) changes.email = value('email')
  if (value('phone') !== record.phone) changes.phone = value('phone')
  if (inputs.preference.value !== record.preference) changes.preference = inputs.preference.value
  const address: NonNullable<CustomerChanges['address']> = {}
  if (value('street') !== record.address.street) address.street = value('street')
  if (value('apartment') !== record.address.apartment) address.apartment = value('apartment')
  if (value('zip') !== record.address.zipcode) address.zip = value('zip')
  if (Object.keys(address).length > 0) changes.address = address
  return changes
}
