import type { Kysely } from 'kysely'
import type { Dialect } from '../dialect.js'

/**
 * A fingerprint of the data key the database's cards, reset links and tracking links are sealed
 * with (D-34): one row, written by the first process that starts, so a process started with
 * another key refuses to start instead of sealing beside it and failing to unseal.
 */
export async function up(db: Kysely<any>, _d: Dialect): Promise<void> {
  await db.schema
    .createTable('data_key')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .execute()
}
