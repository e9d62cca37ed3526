import { EMAIL_MESSAGE, isValidEmail, normalizeEmail } from '../../common/email.js'
import { type FieldError, problems } from '../../platform/problems.js'
import { cleanText, nameProblem, phoneDigits, splitName } from './customers.fields.js'
import type { CustomerUpdate } from './customers.repository.js'
import type { CustomerChanges } from './customers.schemas.js'
import { nameKey } from './name-key.js'
import type { ZipDirectory } from './zip-codes.js'

/**
 * The column changes an update asks for (D-32), every field checked before anything is written so
 * a rejected update changes nothing. Fields left out are left out; empty text clears a field.
 * Rule failures of all fields come back together as one 400 `validation_failed`; a well-formed
 * zip that is not a US ZIP code is 400 `unknown_zip`. The card is checked separately (D-34).
 */
export function planChanges(input: CustomerChanges, zips: ZipDirectory): CustomerUpdate {
  const errors: FieldError[] = []
  const changes: CustomerUpdate = {}

  if (input.customer_name !== undefined) {
    const problem = nameProblem(input.customer_name)
    if (problem !== undefined) errors.push({ field: '/customer/customer_name', message: problem })
    else {
      const name = splitName(input.customer_name)
      Object.assign(changes, { ...name, first_name_lc: nameKey(name.first_name), last_name_lc: nameKey(name.last_name) })
    }
  }

  if (input.email !== undefined) {
    const email = normalizeEmail(input.email)
    if (isValidEmail(email)) changes.email = email
    else errors.push({ field: '/customer/email', message: EMAIL_MESSAGE })
  }

  if (input.phone !== undefined) {
    const phone = phoneDigits(input.phone)
    if (phone !== undefined) changes.phone = phone
    else errors.push({ field: '/customer/phone', message: 'must have 7 to 15 digits' })
  }

  // D-32: both spellings are accepted; sent together they must agree.
  if (input.preference !== undefined && input.preferences !== undefined && input.preference !== input.preferences) {
    errors.push({ field: '/customer/preferences', message: 'must equal preference when both are sent' })
  } else {
    const preference = input.preference ?? input.preferences
    if (preference !== undefined) changes.preference = preference.normalize('NFC')
  }

  let unknownZip = false
  if (input.address !== undefined) {
    const { street, apartment } = input.address
    // The update takes `zip` (spec); the read shape calls it `zipcode`, so a client sending back
    // what it read is understood too. Sent together they must agree.
    let zip = input.address.zip ?? input.address.zipcode
    if (input.address.zip !== undefined && input.address.zipcode !== undefined && input.address.zip !== input.address.zipcode) {
      errors.push({ field: '/customer/address/zipcode', message: 'must equal zip when both are sent' })
      zip = undefined
    }
    if (street !== undefined) changes.street = cleanText(street)
    if (apartment !== undefined) changes.apartment = cleanText(apartment)
    if (zip === '') Object.assign(changes, { zip: '', city: '', state: '' })
    else if (zip !== undefined) {
      // D-32: a new zip re-derives city and state.
      const place = zips.placeOf(zip)
      if (place === undefined) unknownZip = true
      else Object.assign(changes, { zip, city: place.city, state: place.state })
    }
  }

  if (errors.length > 0) throw problems.validation(errors)
  if (unknownZip) throw problems.unknownZip(input.address?.zip === undefined ? '/customer/address/zipcode' : '/customer/address/zip')
  return changes
}
