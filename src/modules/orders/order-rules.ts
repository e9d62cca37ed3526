import { wholeNumber } from '../../common/numbers.js'
import { actorOf, byOf, type Principal } from '../../platform/principal.js'
import { invalidField, problems } from '../../platform/problems.js'
import { MAX_TIMESTAMP, MIN_TIMESTAMP } from './orders.schemas.js'
import type { Author } from './orders.table.js'

/** D-50: whole seconds between 2000-01-01 and 2100-01-01, as a number or digit text. */
export function timestampOf(value: number | string, field: string): number {
  const seconds = wholeNumber(value)
  if (seconds === undefined || seconds < MIN_TIMESTAMP || seconds > MAX_TIMESTAMP) {
    throw invalidField(field, 'must be whole seconds between 946684800 (2000-01-01) and 4102444800 (2100-01-01)')
  }
  return seconds
}

/** D-50: delivery must not be before pickup. */
export function checkDeliveryAfterPickup(pickup: number, delivery: number): void {
  if (delivery < pickup) throw invalidField('/delivery_timestamp', 'must not be before pickup_timestamp')
}

/** D-11: a customer sees only their own orders; another's is answered exactly like a missing one. */
export function assertVisible(customerId: string, principal: Principal): void {
  if (principal.kind === 'customer' && principal.customerId !== customerId) throw problems.transactionNotFound()
}

/** Who the history entries of the principal's change name (D-17, D-56): "" by name for a customer. */
export function authorOf(principal: Principal): Author {
  return { actor: actorOf(principal), by: byOf(principal) }
}

/** A whole number in a range from the body, or a 400 naming the field. */
export function wholeInRange(value: number | string, field: string, min: number, max: number): number {
  const number = wholeNumber(value)
  if (number === undefined || number < min || number > max) throw invalidField(field, `must be a whole number from ${min} to ${max}`)
  return number
}

/** An item id from the body: numeric text (or a number); undefined when it can name no item. */
export function parseItemId(value: string | number): number | undefined {
  const id = wholeNumber(value)
  return id === undefined || id < 1 ? undefined : id
}
