import assert from 'node:assert/strict'
import { hashPassword } from '../../src/common/crypto.js'
import { newId } from '../../src/common/ids.js'
import { nameKey } from '../../src/modules/customers/name-key.js'
import { basic, type TestApp } from './app.js'

let sequence = 0

/** A real customer row, search keys made as the app makes them (D-33), with Basic credentials when a password is given. */
export async function createCustomer(
  t: TestApp,
  options: { firstName?: string; lastName?: string; email?: string; phone?: string; password?: string } = {}
): Promise<{ id: string; email: string; auth: string | null }> {
  sequence++
  const id = newId('cus')
  const email = options.email ?? `customer${sequence}.${id.slice(4, 10)}@example.com`
  const firstName = options.firstName ?? 'Ada'
  const lastName = options.lastName ?? `Tester${sequence}`
  const now = t.clock.now()
  await t.database.unitOfWork.run(async ({ db: trx }) => {
    await trx
      .insertInto('customers')
      .values({
        id,
        email,
        first_name: firstName,
        last_name: lastName,
        first_name_lc: nameKey(firstName),
        last_name_lc: nameKey(lastName),
        phone: options.phone ?? '',
        preference: '',
        street: '',
        apartment: '',
        city: 'New York',
        state: 'NY',
        zip: '10001',
        password_hash: options.password === undefined ? null : await hashPassword(options.password),
        payment_customer_id: '',
        card_ciphertext: null,
        card_last4: null,
        card_expiration: null,
        created_at: now,
        updated_at: now
      })
      .execute()
  })
  return { id, email, auth: options.password === undefined ? null : basic(email, options.password) }
}

export interface StepSpec {
  description: string
  button_title?: string
  events?: string[]
  expected_minutes?: number | null
}

/** A service with these steps, created over HTTP with the staff key. */
export async function createService(t: TestApp, name: string, steps: StepSpec[]): Promise<void> {
  const [first, ...rest] = steps
  const created = await t.post('/v1/service/create', { service_name: name, ...first })
  assert.equal(created.statusCode, 200, created.body)
  for (const step of rest) {
    const added = await t.post('/v1/service/add', { service_name: name, ...step })
    assert.equal(added.statusCode, 200, added.body)
  }
}

/** An item of a service, created over HTTP; returns its id. */
export async function createItem(t: TestApp, serviceName: string, title: string, priceCents: number, group?: string): Promise<string> {
  const response = await t.post('/v1/item/create', {
    service_name: serviceName,
    title,
    price: priceCents,
    image_url: `${title.toLowerCase()}.png`,
    ...(group ? { group } : {})
  })
  assert.equal(response.statusCode, 200, response.body)
  return (response.json() as { item_id: string }).item_id
}

/** An order placed over HTTP with the staff key; returns the create answer. */
export async function createOrder(
  t: TestApp,
  customerId: string,
  serviceName: string,
  times: { pickup?: number; delivery?: number; notes?: string } = {}
): Promise<{ transaction_id: string; transaction_code: number }> {
  const response = await t.post('/v1/transaction/create', {
    customer_id: customerId,
    service_name: serviceName,
    pickup_timestamp: times.pickup ?? 1_793_344_500,
    delivery_timestamp: times.delivery ?? 1_793_430_900,
    ...(times.notes === undefined ? {} : { notes: times.notes })
  })
  assert.equal(response.statusCode, 200, response.body)
  return response.json()
}
