import type { E2eServer } from './server.js'

// Records the browser tests start from, made through the API with the admin key: the console's
// own forms are tested where they are the subject.

/** A step as create service and add step take it (D-41, D-48). */
export interface StepSeed {
  description: string
  button: string
  events?: string[]
  expected_minutes?: number | null
}

/** A service with its steps in order and items (title and price in cents); answers the items' ids by title. */
export async function seedService(
  e2e: E2eServer,
  name: string,
  steps: readonly StepSeed[],
  items: ReadonlyArray<{ title: string; price: number; group?: string }> = []
): Promise<Map<string, string>> {
  const body = (step: StepSeed) => ({
    description: step.description,
    button_title: step.button,
    events: step.events ?? [],
    expected_minutes: step.expected_minutes ?? null
  })
  const [first, ...rest] = steps
  await e2e.api('/v1/service/create', { service_name: name, ...body(first!) })
  for (const step of rest) await e2e.api('/v1/service/add', { service_name: name, ...body(step) })
  const ids = new Map<string, string>()
  for (const item of items) {
    const made = await e2e.api<{ item_id: string }>('/v1/item/create', { service_name: name, ...item })
    ids.set(item.title, made.item_id)
  }
  return ids
}

/** A customer with a name (and a phone, when given); answers the id. */
export async function seedCustomer(e2e: E2eServer, name: string, extra: { phone?: string; zip?: string } = {}): Promise<string> {
  const email = `${name.toLowerCase().replace(/[^a-z]+/g, '.')}@example.com`
  const { customer_id } = await e2e.api<{ customer_id: string }>('/v1/customer/create', { email, zip: extra.zip ?? '10001' })
  await e2e.api('/v1/customer/update', {
    customer: { customer_id, customer_name: name, ...(extra.phone === undefined ? {} : { phone: extra.phone }) }
  })
  return customer_id
}

/** An order placed through the API: pickup on the hour, `hours` hours from now, delivery two days later; moved on `moves` steps. */
export async function seedOrder(
  e2e: E2eServer,
  order: { customer_id: string; service_name: string; hours?: number; moves?: number; notes?: string }
): Promise<{ transaction_id: string; transaction_code: string }> {
  const pickup = Math.floor(Date.now() / 1000 / 3600) * 3600 + (order.hours ?? 24) * 3600
  const created = await e2e.api<{ transaction_id: string; transaction_code: number }>('/v1/transaction/create', {
    customer_id: order.customer_id,
    service_name: order.service_name,
    pickup_timestamp: pickup,
    delivery_timestamp: pickup + 2 * 86_400,
    ...(order.notes === undefined ? {} : { notes: order.notes })
  })
  for (let i = 0; i < (order.moves ?? 0); i++) {
    await e2e.api('/v1/transaction/move', { customer_id: order.customer_id, transaction_id: created.transaction_id })
  }
  return { transaction_id: created.transaction_id, transaction_code: String(created.transaction_code).padStart(8, '0') }
}

/** Runs `work` on every element, `width` at a time: quick seeding that a loaded machine still serves. */
export async function inBatches<T, R>(list: readonly T[], width: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = []
  for (let start = 0; start < list.length; start += width) {
    results.push(...(await Promise.all(list.slice(start, start + width).map((item, offset) => work(item, start + offset)))))
  }
  return results
}
