import type { Kysely } from 'kysely'
import type { Dialect } from '../dialect.js'

/**
 * Tracking links for customers (issue 9): one live token per order, looked up by its SHA-256 and
 * kept sealed with the data key so the same link can be handed out again.
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  await db.schema
    .createTable('tracking_tokens')
    .addColumn('order_id', d.bigint, (c) => c.primaryKey().references('orders.id'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('sealed_token', 'text', (c) => c.notNull())
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .execute()
}
