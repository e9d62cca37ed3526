import type { Kysely } from 'kysely'
import type { Dialect } from '../dialect.js'

/**
 * Issue 25: one row that /readyz writes when it must know whether the database takes writes (a
 * full disk, a read-only database), without touching any data of the shop.
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  await db.schema
    .createTable('health_probe')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('probed_at', d.bigint, (c) => c.notNull())
    .execute()
}
