import { type Compilable, expressionBuilder, type Kysely, type SelectQueryBuilder, sql } from 'kysely'
import type { Dialect } from '../../db/dialect.js'
import type { DB } from '../../db/schema.js'
import type { Param } from '../../db/statement.js'
import type { OrderStatus } from './orders.table.js'
import type { FullViewRow } from './orders.views.js'

/** An order as the write use cases see it, with its step and service, locked for the transaction. */
export interface LockedOrder {
  id: number
  public_id: string
  code: number
  customer_id: string
  service_id: number
  step_id: number
  status: OrderStatus
  pickup_at: number
  delivery_at: number
  note: string
  position: number
  step_description: string
  step_count: number
  service_name: string
}

/** A step to enter: where it is and what it announces. */
export interface StepTarget {
  id: number
  position: number
  description: string
  events: string
}

/** A service as an order enters it: its name, its number of steps and its first step. */
export interface ServiceStart {
  service_id: number
  service_name: string
  step_count: number
  step: StepTarget
}

/** A service start as read: on SQLite with its step 1's columns, on PostgreSQL without (read after the lock). */
export type ServiceStartRow = Omit<ServiceStart, 'step'> & {
  step_id?: number
  step_position?: number
  step_description?: string
  step_events?: string
}

/**
 * A service by name key, and with `customerId` whether that customer exists (`customer_found`). On
 * SQLite, joined with its step 1: one statement. On PostgreSQL the service row is held in share mode
 * and its step 1 is read by the next statement: step changes lock the service for update, and a
 * share lock taken in a join would, once granted, re-check the join against the step row as it was
 * before that change (a removed step 1, say).
 */
export function serviceStartSelect(db: Kysely<DB>, key: string, locks: boolean, customerId?: string): Compilable<ServiceStartRow> {
  const service = db
    .selectFrom('services as s')
    .select(['s.id as service_id', 's.name as service_name', 's.step_count'])
    .where('s.name_key', '=', key)
  const eb = expressionBuilder<DB, never>()
  const customerFound =
    customerId === undefined
      ? []
      : [
          eb
            .case()
            .when(eb.exists(eb.selectFrom('customers').select('customers.id').where('customers.id', '=', customerId)))
            .then(1)
            .else(0)
            .end()
            .as('customer_found')
        ]
  if (locks) return service.forShare(['s']).select(customerFound)
  return service
    .innerJoin('service_steps as st', (join) => join.onRef('st.service_id', '=', 's.id').on('st.position', '=', 1))
    .select(['st.id as step_id', 'st.position as step_position', 'st.description as step_description', 'st.events as step_events'])
    .select(customerFound)
}

type FullViewQuery = SelectQueryBuilder<DB, 'orders' | 'services' | 'service_steps', FullViewRow>

/**
 * The joins and columns every full view is read with: one query and one row per order, its receipt
 * lines as one JSON text (`ReceiptLineTuple`s by line id), so no N+1 and no order columns repeated
 * per line.
 *
 * On PostgreSQL the service, the step and each line's item are looked up by key (`joinByKey`):
 * with plain joins every read of one order scanned and hashed all the services, steps and items
 * again. SQLite's planner looks them up by key anyway, so it keeps the plain joins.
 */
export function fullViewSelect(db: Kysely<DB>, dialect: Dialect): FullViewQuery {
  const linesWithItems = dialect.joinByKey(db.selectFrom('receipt_lines as l'), {
    table: 'items',
    as: 'i',
    on: { id: sql.ref('l.item_id') },
    columns: ['title', 'image_url']
  }) as SelectQueryBuilder<DB & { l: DB['receipt_lines']; i: DB['items'] }, 'l' | 'i', object>
  const lines = linesWithItems
    .where('l.order_id', '=', sql.ref<number>('orders.id'))
    .select(
      dialect
        .jsonArrayRows(
          [
            sql.ref('l.id'),
            sql.ref('l.item_id'),
            sql.ref('l.quantity'),
            sql.ref('l.unit_price_cents'),
            sql.ref('i.title'),
            sql.ref('i.image_url')
          ],
          sql.ref('l.id')
        )
        .as('receipt_lines')
    )
  const withService = dialect.joinByKey(db.selectFrom('orders'), {
    table: 'services',
    as: 'services',
    on: { id: sql.ref('orders.service_id') },
    columns: ['id', 'public_id', 'name', 'step_count']
  })
  const joined = dialect.joinByKey(withService, {
    table: 'service_steps',
    as: 'service_steps',
    on: { id: sql.ref('orders.step_id') },
    columns: ['id', 'position', 'description', 'button_title', 'events']
  }) as SelectQueryBuilder<DB, 'orders' | 'services' | 'service_steps', object>
  return joined.select([
    'orders.id',
    'orders.public_id',
    'orders.code',
    'orders.customer_id',
    'orders.status',
    'orders.pickup_at',
    'orders.delivery_at',
    'orders.note',
    'services.public_id as service_id',
    'services.name as service_name',
    'services.step_count',
    'service_steps.position',
    'service_steps.description',
    'service_steps.button_title',
    'service_steps.events',
    // Never null: the aggregate answers `[]` for no lines.
    lines.as('receipt_lines')
  ]) as FullViewQuery
}

/** The order joined with its step and service (`LockedOrder`), by public id, each looked up by key. */
export function lockedSelect(db: Kysely<DB>, dialect: Dialect, param: Param<{ publicId: string }>) {
  const withStep = dialect.joinByKey(db.selectFrom('orders as o'), {
    table: 'service_steps',
    as: 'st',
    on: { id: sql.ref('o.step_id') },
    columns: ['position', 'description']
  })
  const joined = dialect.joinByKey(withStep, {
    table: 'services',
    as: 's',
    on: { id: sql.ref('o.service_id') },
    columns: ['step_count', 'name']
  }) as SelectQueryBuilder<DB & { o: DB['orders']; st: DB['service_steps']; s: DB['services'] }, 'o' | 'st' | 's', object>
  return joined
    .select([
      'o.id',
      'o.public_id',
      'o.code',
      'o.customer_id',
      'o.service_id',
      'o.step_id',
      'o.status',
      'o.pickup_at',
      'o.delivery_at',
      'o.note',
      'st.position',
      'st.description as step_description',
      's.step_count',
      's.name as service_name'
    ])
    .where('o.public_id', '=', param('publicId'))
}
