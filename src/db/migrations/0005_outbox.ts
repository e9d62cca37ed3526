import type { Kysely } from 'kysely'
import type { Dialect } from '../dialect.js'
import { sqlIn } from './helpers.js'

/** The transactional outbox of e-mails, texts and tracking events (D-60, D-61). */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  await d
    .addIdColumn(db.schema.createTable('outbox'))
    .addColumn('event_id', 'text', (c) => c.notNull().unique())
    .addColumn('channel', 'text', (c) => c.notNull().check(sqlIn('channel', ['email', 'text', 'trak'])))
    .addColumn('template', 'text', (c) => c.notNull())
    .addColumn('order_id', d.bigint, (c) => c.references('orders.id'))
    .addColumn('customer_id', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sqlIn('status', ['pending', 'delivered', 'skipped', 'dead'])))
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', d.bigint, (c) => c.notNull())
    .addColumn('claimed_by', 'text')
    .addColumn('claimed_until', d.bigint)
    .addColumn('last_error', 'text')
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('updated_at', d.bigint, (c) => c.notNull())
    .addColumn('delivered_at', d.bigint)
    .execute()
  await db.schema.createIndex('outbox_due').on('outbox').columns(['status', 'next_attempt_at', 'id']).execute()
  await db.schema.createIndex('outbox_order').on('outbox').columns(['order_id', 'id']).execute()
}
