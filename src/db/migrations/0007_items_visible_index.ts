import { type Kysely, sql } from 'kysely'
import type { Dialect } from '../dialect.js'

/**
 * The visible items of a service in id order, as "get items" reads them (D-46): a partial index of
 * the rows not removed halves that query on SQLite (BENCHMARKS.md). Supersedes `items_service`.
 */
export async function up(db: Kysely<any>, _d: Dialect): Promise<void> {
  await db.schema
    .createIndex('items_service_visible')
    .on('items')
    .columns(['service_id', 'id'])
    .where(sql.ref('removed_at'), 'is', null)
    .execute()
  await db.schema.dropIndex('items_service').execute()
}
