import { type Kysely, sql } from 'kysely'
import type { Dialect } from '../dialect.js'
import { sqlIn } from './helpers.js'

/** Orders (the wire's transactions), their receipt lines and history (D-50 to D-57). */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  await d
    .addIdColumn(db.schema.createTable('orders'))
    .addColumn('public_id', 'text', (c) => c.notNull().unique())
    .addColumn('code', 'integer', (c) => c.notNull().unique())
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
    .addColumn('service_id', d.bigint, (c) => c.notNull().references('services.id'))
    .addColumn('step_id', d.bigint, (c) => c.notNull().references('service_steps.id'))
    .addColumn('status', 'text', (c) => c.notNull().check(sqlIn('status', ['open', 'closed'])))
    .addColumn('pickup_at', d.bigint, (c) => c.notNull())
    .addColumn('delivery_at', d.bigint, (c) => c.notNull())
    .addColumn('note', 'text', (c) => c.notNull())
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('updated_at', d.bigint, (c) => c.notNull())
    .execute()
  // Keyset pagination newest first, per customer and per service (D-57).
  await db.schema.createIndex('orders_customer').on('orders').columns(['customer_id', 'id']).execute()
  await db.schema.createIndex('orders_service').on('orders').columns(['service_id', 'id']).execute()
  await db.schema.createIndex('orders_step').on('orders').columns(['step_id', 'id']).execute()

  await d
    .addIdColumn(db.schema.createTable('receipt_lines'))
    .addColumn('order_id', d.bigint, (c) => c.notNull().references('orders.id'))
    .addColumn('item_id', d.bigint, (c) => c.notNull().references('items.id'))
    .addColumn('unit_price_cents', 'integer', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull().check(sql`quantity >= 1`))
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addUniqueConstraint('receipt_lines_item', ['order_id', 'item_id'])
    .execute()

  await d
    .addIdColumn(db.schema.createTable('order_history'))
    .addColumn('order_id', d.bigint, (c) => c.notNull().references('orders.id'))
    .addColumn('at', d.bigint, (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('order_history_order').on('order_history').columns(['order_id', 'id']).execute()
}
