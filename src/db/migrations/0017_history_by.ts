import type { Kysely } from 'kysely'
import type { Dialect } from '../dialect.js'

/**
 * D-17, D-56: each history entry names who did it (`by`): the staff member's name for a console
 * session, the API key's name for a key, "" for customers and the system. Entries written before
 * this migration keep "": who wrote them was never recorded.
 */
export async function up(db: Kysely<any>, _d: Dialect): Promise<void> {
  await db.schema
    .alterTable('order_history')
    .addColumn('by', 'text', (c) => c.notNull().defaultTo(''))
    .execute()
}
