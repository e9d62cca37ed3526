import type { Kysely } from 'kysely'
import type { Dialect } from '../dialect.js'

/**
 * A `tracked` history entry (D-56) is written by the dispatcher, after the change whose step
 * entry it announces and possibly after later changes too. Sorting by time alone put it after
 * later moves written in the same millisecond. Now each step event's outbox row keeps the id of the
 * history entry written with it (`history_id`), and the `tracked` entry keeps it as `follows`:
 * the history sorts a `tracked` entry right after the entry it follows. Rows written before this
 * migration have neither and sort by time and id as before.
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  await db.schema.alterTable('outbox').addColumn('history_id', d.bigint).execute()
  await db.schema.alterTable('order_history').addColumn('follows', d.bigint).execute()
}
