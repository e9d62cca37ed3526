import { sql } from 'kysely'
import type { StatementCompiler } from '../../db/statement.js'

/**
 * One step of a service and one open order at it (all `order_*` and `customer_*` null for a step
 * without open orders), with the step's counter of every order at it, open or closed (D-44).
 */
export interface BoardRow {
  service_name: string
  position: number
  description: string
  button_title: string
  expected_minutes: number | null
  order_count: number
  order_id: string | null
  code: number | null
  customer_id: string | null
  pickup_at: number | null
  step_entered_at: number | null
  note: string | null
  first_name: string | null
  last_name: string | null
  email: string | null
  total_cents: number | null
}

/**
 * The board of one service (console extension): its steps in order, each with its open orders, their
 * customers and receipt totals, in one statement, so the counts and cards are of one moment and the
 * cost is one read however many orders are open. Open orders are found by (service, status, step)
 * (migration 0015's index); closed ones are not read, only counted by the steps' counters.
 */
export function boardRepository(database: StatementCompiler) {
  const board = database.prepare<{ key: string }, BoardRow>('orders.board', (db, param) =>
    db
      .selectFrom('services as s')
      .innerJoin('service_steps as st', 'st.service_id', 's.id')
      .leftJoin('orders as o', (join) =>
        join.onRef('o.service_id', '=', 's.id').on('o.status', '=', sql.lit('open')).onRef('o.step_id', '=', 'st.id')
      )
      .leftJoin('customers as c', 'c.id', 'o.customer_id')
      .select([
        's.name as service_name',
        'st.position',
        'st.description',
        'st.button_title',
        'st.expected_minutes',
        'st.order_count',
        'o.public_id as order_id',
        'o.code',
        'o.customer_id',
        'o.pickup_at',
        'o.step_entered_at',
        'o.note',
        'c.first_name',
        'c.last_name',
        'c.email'
      ])
      .select((eb) =>
        eb
          .selectFrom('receipt_lines as l')
          // In 64 bits: a line's price times its quantity can pass 2^31 cents.
          .select(sql<number>`cast(sum(cast(${sql.ref('l.unit_price_cents')} as bigint) * ${sql.ref('l.quantity')}) as bigint)`.as('total'))
          .whereRef('l.order_id', '=', 'o.id')
          .as('total_cents')
      )
      .where('s.name_key', '=', param('key'))
      .orderBy('st.position')
  )

  return {
    /** The rows of a service's board; none when no service has this name key. */
    board: (key: string) => board.rows({ key })
  }
}

export type BoardRepository = ReturnType<typeof boardRepository>
