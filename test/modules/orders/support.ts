import type { TestApp } from '../../helpers/app.js'
import { createCustomer, createItem, createService } from '../../helpers/factories.js'

/** 2026-10-30 07:15:00 UTC and a day later. */
export const PICKUP = 1_793_344_500
export const DELIVERY = 1_793_430_900

/** A customer with credentials, another without, a three-step service with events, and items. */
export async function orderFixture(t: TestApp, serviceName = 'Dry Cleaning') {
  const owner = await createCustomer(t, { firstName: 'Olive', lastName: 'Owner', password: 'owner password 1' })
  const other = await createCustomer(t, { firstName: 'Otto', lastName: 'Other', password: 'other password 1' })
  await createService(t, serviceName, [
    { description: 'Picked up', button_title: 'Pick up', events: ['email'] },
    { description: 'Cleaning', button_title: 'Start cleaning', events: ['text', 'trak'] },
    { description: 'Delivered', button_title: 'Deliver' }
  ])
  const shirt = await createItem(t, serviceName, 'Shirt', 250)
  const suit = await createItem(t, serviceName, 'Suit', 1999, 'Formal')
  return { owner: { ...owner, auth: owner.auth! }, other: { ...other, auth: other.auth! }, serviceName, shirt, suit }
}

/** Rows of a table, for "nothing changed" checks. */
export async function countRows(t: TestApp, table: 'orders' | 'order_history' | 'outbox' | 'receipt_lines'): Promise<number> {
  const row = await t.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}
