import { randomBytes, randomInt } from 'node:crypto'
import type { Selectable } from 'kysely'
import { newId } from '../../../../src/common/ids.js'
import { type OutboxMessage, outboxWriter } from '../../../../src/modules/notifications/outbox.repository.js'
import type { OutboxChannel, OutboxTable } from '../../../../src/modules/notifications/outbox.table.js'
import type { TestApp } from '../../../helpers/app.js'

// Rows are made directly with Kysely: the customers and orders modules are written beside this one,
// and these tests need only rows, not their use cases.

/** A customer row as the channels read it. */
export interface TestCustomer {
  id: string
  email: string
  first_name: string
  last_name: string
  phone: string
}

export interface TestService {
  id: number
  name: string
  steps: Array<{ id: number; position: number; description: string }>
}

export interface TestOrder {
  id: number
  public_id: string
  code: number
  customer: TestCustomer
  service: TestService
}

function unique(): string {
  return randomBytes(4).toString('hex')
}

/** Inserts a customer; `phone: ''` makes one without a phone. */
export async function insertCustomer(t: TestApp, fields: Partial<Omit<TestCustomer, 'id'>> = {}): Promise<TestCustomer> {
  const now = t.clock.now()
  const customer: TestCustomer = {
    id: newId('cus'),
    email: fields.email ?? `jane.${unique()}@example.com`,
    first_name: fields.first_name ?? 'Jane',
    last_name: fields.last_name ?? 'Doe',
    phone: fields.phone ?? '5551234567'
  }
  await t.database.unitOfWork.run(({ db: trx }) =>
    trx
      .insertInto('customers')
      .values({
        ...customer,
        first_name_lc: customer.first_name.toLowerCase(),
        last_name_lc: customer.last_name.toLowerCase(),
        preference: '',
        street: '1 Main St',
        apartment: '',
        city: 'Springfield',
        state: 'IL',
        zip: '62701',
        password_hash: null,
        payment_customer_id: newId('pay'),
        card_ciphertext: null,
        card_last4: null,
        card_expiration: null,
        created_at: now,
        updated_at: now
      })
      .execute()
  )
  return customer
}

/** Inserts a service with one step per description. */
async function insertService(
  t: TestApp,
  descriptions: string[] = ['Picked up', 'Washing', 'Delivered'],
  name?: string
): Promise<TestService> {
  const serviceName = name ?? `Wash ${unique()}`
  return t.database.unitOfWork.run(async ({ db: trx }) => {
    const service = await trx
      .insertInto('services')
      .values({
        public_id: newId('svc'),
        name: serviceName,
        name_key: serviceName.toLowerCase(),
        image_title: 'wash',
        step_count: descriptions.length,
        created_at: t.clock.now()
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    const steps: TestService['steps'] = []
    for (const [index, description] of descriptions.entries()) {
      const step = await trx
        .insertInto('service_steps')
        .values({ service_id: service.id, position: index + 1, description, button_title: '', events: 'email,text,trak', order_count: 0 })
        .returning('id')
        .executeTakeFirstOrThrow()
      steps.push({ id: Number(step.id), position: index + 1, description })
    }
    return { id: Number(service.id), name: serviceName, steps }
  })
}

/** Inserts an open order of the customer at step 1 of the service. */
async function insertOrder(t: TestApp, customer: TestCustomer, service: TestService): Promise<TestOrder> {
  const now = t.clock.now()
  const public_id = newId('trx')
  const code = randomInt(10_000_000, 100_000_000)
  const row = await t.database.unitOfWork.run(({ db: trx }) =>
    trx
      .insertInto('orders')
      .values({
        public_id,
        code,
        customer_id: customer.id,
        service_id: service.id,
        step_id: service.steps[0]!.id,
        status: 'open',
        pickup_at: 1_793_344_500,
        delivery_at: 1_793_430_900,
        note: '',
        created_at: now,
        updated_at: now,
        step_entered_at: now
      })
      .returning('id')
      .executeTakeFirstOrThrow()
  )
  return { id: Number(row.id), public_id, code, customer, service }
}

/** A customer, a service and an order of theirs, in one call. */
export async function insertOrderFixture(
  t: TestApp,
  customerFields: Partial<Omit<TestCustomer, 'id'>> = {},
  descriptions?: string[]
): Promise<TestOrder> {
  const customer = await insertCustomer(t, customerFields)
  const service = await insertService(t, descriptions)
  return insertOrder(t, customer, service)
}

/** The outbox messages of entering step `position` of the order's service, one per channel (D-60). */
export function stepMessages(
  order: TestOrder,
  position: number,
  channels: readonly OutboxChannel[]
): Extract<OutboxMessage, { template: 'step' }>[] {
  const step = order.service.steps[position - 1]!
  return channels.map((channel) => ({
    channel,
    template: 'step' as const,
    orderId: order.id,
    customerId: order.customer.id,
    payload: {
      transaction_id: order.public_id,
      transaction_code: order.code,
      service_name: order.service.name,
      position,
      total_steps: order.service.steps.length,
      description: step.description
    }
  }))
}

/** Writes messages through the writer contract, in a unit of work, as the use cases do (D-60). */
export async function enqueue(t: TestApp, messages: readonly OutboxMessage[], now = t.clock.now()): Promise<void> {
  const writer = outboxWriter(t.database)
  await t.database.unitOfWork.run((trx) => writer.enqueue(trx, messages, now))
}

export type OutboxRow = Selectable<OutboxTable>

/** Every outbox row, oldest first. */
export function outboxRows(t: TestApp): Promise<OutboxRow[]> {
  return t.database.db.selectFrom('outbox').selectAll().orderBy('id').execute()
}

/** The order's `tracked` history entries, oldest first. */
export function trackedEntries(t: TestApp, orderId: number) {
  return t.database.db
    .selectFrom('order_history')
    .select(['type', 'actor', 'by', 'position', 'description', 'at'])
    .where('order_id', '=', orderId)
    .where('type', '=', 'tracked')
    .orderBy('id')
    .execute()
}

/** Empties the outbox and tracked history, so each test starts from nothing on the suite's database. */
export async function resetOutbox(t: TestApp): Promise<void> {
  await t.database.unitOfWork.run(async ({ db: trx }) => {
    await trx.deleteFrom('order_history').where('type', '=', 'tracked').execute()
    await trx.deleteFrom('outbox').execute()
  })
}

/**
 * Resolves once `check` returns a value other than undefined or false; polls, with a generous
 * time-out so a loaded machine is slow rather than failing.
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 30_000
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Waits until no outbox row is pending any more; returns all rows. */
export function waitForSettled(t: TestApp, timeoutMs?: number): Promise<OutboxRow[]> {
  return waitFor(
    'every outbox row to be settled',
    async () => {
      const rows = await outboxRows(t)
      return rows.every((row) => row.status !== 'pending') ? rows : undefined
    },
    timeoutMs
  )
}
