import { type Kysely, sql } from 'kysely'
import type { Dialect } from '../dialect.js'

// Frozen copies of what the orders module wrote when this shipped. An order's history entries of
// these types put it at a step (orders.table.ts STEP_ENTRY_TYPES)…
const STEP_ENTRY_TYPES = ['created', 'moved', 'updated']
// …but for the `updated` entries of a change of times or note (orders.service.ts writes `Changed `
// and the fields changed, in this order): those left the order where it was.
const FIELD_CHANGES = [
  'Changed pickup_timestamp',
  'Changed delivery_timestamp',
  'Changed pickup_timestamp, delivery_timestamp',
  'Changed note',
  'Changed pickup_timestamp, note',
  'Changed delivery_timestamp, note',
  'Changed pickup_timestamp, delivery_timestamp, note'
]

/**
 * D-47, D-48: a step's expected minutes, when the order entered its step (an open order at its step
 * longer than that is overdue), and a version of each step's texts, so statistics, which keep texts
 * in memory, know a rename or an edited step at once in every process.
 *
 * `step_entered_at` of existing orders is the time of their latest step entry, else their creation.
 * SQLite cannot add a NOT NULL column without a default nor drop one: the 0 stays there, unused
 * (every INSERT names the column).
 *
 * The board (D-47 console) reads a service's open orders step by step: (service_id, status, step_id).
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  await db.schema.alterTable('service_steps').addColumn('expected_minutes', 'integer').execute()
  await db.schema
    .alterTable('service_steps')
    .addColumn('texts_version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
  await db.schema
    .alterTable('orders')
    .addColumn('step_entered_at', d.bigint, (c) => c.notNull().defaultTo(0))
    .execute()
  await db
    .updateTable('orders')
    .set((eb) => ({
      step_entered_at: eb.fn.coalesce(
        eb
          .selectFrom('order_history as h')
          .select((eb) => eb.fn.max('h.at').as('at'))
          .whereRef('h.order_id', '=', 'orders.id')
          .where('h.type', 'in', STEP_ENTRY_TYPES)
          .where((eb) => eb.or([eb('h.type', '<>', 'updated'), eb('h.description', 'not in', FIELD_CHANGES)])),
        sql.ref('orders.created_at')
      )
    }))
    .execute()
  if (d.name === 'postgres') {
    await db.schema
      .alterTable('orders')
      .alterColumn('step_entered_at', (c) => c.dropDefault())
      .execute()
  }
  await db.schema.createIndex('orders_service_status_step').on('orders').columns(['service_id', 'status', 'step_id']).execute()
}
