import type { Static } from 'typebox'
import type { CustomerCreateView, CustomerView } from './customers.schemas.js'

/** The columns every customer view is made from; never card data or the password hash. */
export interface CustomerProfileRow {
  id: string
  email: string
  first_name: string
  last_name: string
  phone: string
  preference: string
  street: string
  apartment: string
  city: string
  state: string
  zip: string
  payment_customer_id: string
}

/** Spec "Customer, create response shape": address keys `street_one`, `street_two`, `zip`. */
export function toCustomerCreateView(row: CustomerProfileRow): Static<typeof CustomerCreateView> {
  return {
    customer_id: row.id,
    first_name: row.first_name,
    last_name: row.last_name,
    email: row.email,
    phone: row.phone,
    payment_customer_id: row.payment_customer_id,
    address: { street_one: row.street, street_two: row.apartment, city: row.city, state: row.state, zip: row.zip }
  }
}

/** Spec "Customer, read and update response shape": `username` is the e-mail (D-31), address keys `street`, `apartment`, `zipcode`. */
export function toCustomerView(row: CustomerProfileRow): Static<typeof CustomerView> {
  return {
    customer_id: row.id,
    first_name: row.first_name,
    last_name: row.last_name,
    username: row.email,
    email: row.email,
    phone: row.phone,
    preference: row.preference,
    address: { street: row.street, apartment: row.apartment, city: row.city, state: row.state, zipcode: row.zip }
  }
}
