import { type Kysely, sql } from 'kysely'
import type { Dialect } from '../dialect.js'

/** Services, their numbered steps with order counters, and items (D-40 to D-46). */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  await d
    .addIdColumn(db.schema.createTable('services'))
    .addColumn('public_id', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull().unique())
    .addColumn('image_title', 'text', (c) => c.notNull())
    .addColumn('step_count', 'integer', (c) => c.notNull().check(sql`step_count >= 1`))
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .execute()

  await d
    .addIdColumn(db.schema.createTable('service_steps'))
    .addColumn('service_id', d.bigint, (c) => c.notNull().references('services.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('button_title', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('order_count', 'integer', (c) => c.notNull().check(sql`order_count >= 0`))
    .addUniqueConstraint('service_steps_position', ['service_id', 'position'])
    .execute()

  await d
    .addIdColumn(db.schema.createTable('items'))
    .addColumn('service_id', d.bigint, (c) => c.notNull().references('services.id'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('price_cents', 'integer', (c) => c.notNull().check(sql`price_cents >= 0`))
    .addColumn('image_url', 'text', (c) => c.notNull())
    .addColumn('group_name', 'text', (c) => c.notNull())
    .addColumn('removed_at', d.bigint)
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('updated_at', d.bigint, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('items_service').on('items').columns(['service_id', 'id']).execute()
}
