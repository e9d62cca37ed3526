import type { Kysely } from 'kysely'
import type { Dialect } from '../dialect.js'

/**
 * A `tracked` history entry (D-56) is written by the dispatcher, after the change whose step
 * entry it announces and possibly after later changes too. Sorting by time alone put it after
 * later moves written in the same millisecond. Now each step event's outbox row keeps the id of the
 * history entry written with it (`history_id`), and the `tracked` entry keeps it as `follows`:
 * the history sorts a `tracked` entry right after the entry it follows.
 *
 * Entries tracked before this migration are linked here to the latest step entry of their order,
 * step and millisecond written before them, so old histories read in that order too. Rows still
 * pending get theirs when delivered (notifications.repository.ts, the same rule).
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  await db.schema.alterTable('outbox').addColumn('history_id', d.bigint).execute()
  await db.schema.alterTable('order_history').addColumn('follows', d.bigint).execute()
  await linkTrackedEntries(db)
}

/** Links each `tracked` entry without `follows` to its step entry (see above). */
export async function linkTrackedEntries(db: Kysely<any>): Promise<void> {
  await db
    .updateTable('order_history as t')
    .set((eb) => ({
      follows: eb
        .selectFrom('order_history as h')
        .select((eb) => eb.fn.max('h.id').as('id'))
        .whereRef('h.order_id', '=', 't.order_id')
        .whereRef('h.at', '=', 't.at')
        .whereRef('h.position', '=', 't.position')
        .whereRef('h.id', '<', 't.id')
        .where('h.type', 'in', ['created', 'moved', 'updated'])
    }))
    .where('t.type', '=', 'tracked')
    .where('t.follows', 'is', null)
    .execute()
}
