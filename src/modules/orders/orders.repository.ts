import { type Compilable, type SelectQueryBuilder, sql } from 'kysely'
import type { DB } from '../../db/schema.js'
import type { StatementCompiler, Tx } from '../../db/statement.js'
import { orderWrites } from './order-writes.repository.js'
import type { FullViewRow, HistoryRow } from './orders.views.js'
import {
  fullViewSelect,
  type LockedOrder,
  lockedSelect,
  type ServiceStart,
  type ServiceStartRow,
  type StepTarget,
  serviceStartSelect
} from './orders-full-view.repository.js'

export type { LockedOrder }

/**
 * An order as a receipt change reads it once its row is locked: its full view, its service's row
 * id, and the catalogue item the change names (all five `item_*` null when there is no such item,
 * or it was removed). The change answers from this and what it wrote, with no read after its
 * writes, as a move does.
 */
export interface ReceiptOrder extends FullViewRow {
  service_row_id: number
  item_id: number | null
  item_service_id: number | null
  item_price_cents: number | null
  item_title: string | null
  item_image_url: string | null
}

/**
 * An order as a move reads it once its row is locked: its full view, its step's row id and the
 * step after it (all four `next_step_*` null at the last step). The move answers from this and
 * what it changes, with no read after its writes.
 */
export interface MovableOrder extends FullViewRow {
  step_id: number
  next_step_id: number | null
  next_step_description: string | null
  next_step_button_title: string | null
  next_step_events: string | null
}

/** The reads of orders, their history and the row locks a write takes first; compiled once per database. */
function orderReads(database: StatementCompiler) {
  const { dialect } = database
  const locks = dialect.supportsRowLocks

  return {
    fullView: database.prepare<{ publicId: string }, FullViewRow>('orders.fullView', (db, param) =>
      fullViewSelect(db, dialect).where('orders.public_id', '=', param('publicId'))
    ),

    // The order joined with its step and service. On PostgreSQL it is read only after the rows are
    // locked (below): a lock taken in a join with the step would re-check a concurrently moved
    // order against the old step row and lose it.
    locked: database.prepare<{ publicId: string }, LockedOrder>('orders.locked', (db, param) => lockedSelect(db, dialect, param)),

    // What a receipt change reads, after the same locks as `locked`: the full view, and the
    // catalogue item it names in the same statement (`ReceiptOrder`).
    receiptOrder: database.prepare<{ publicId: string; itemId: number }, ReceiptOrder>('orders.receiptOrder', (db, param) =>
      fullViewSelect(db, dialect)
        .leftJoin('items as named', (join) => join.on('named.id', '=', param('itemId')).on('named.removed_at', 'is', null))
        .select([
          'orders.service_id as service_row_id',
          'named.id as item_id',
          'named.service_id as item_service_id',
          'named.price_cents as item_price_cents',
          'named.title as item_title',
          'named.image_url as item_image_url'
        ])
        .where('orders.public_id', '=', param('publicId'))
    ),

    // What a move reads, after the same locks as `locked`: the full view and the next step, by key.
    movable: database.prepare<{ publicId: string }, MovableOrder>(
      'orders.movable',
      (db, param) =>
        (
          dialect.joinByKey(fullViewSelect(db, dialect), {
            table: 'service_steps',
            as: 'nx',
            on: { service_id: sql.ref('orders.service_id'), position: sql<number>`${sql.ref('service_steps.position')} + 1` },
            columns: ['id', 'description', 'button_title', 'events'],
            left: true
          }) as SelectQueryBuilder<DB & { nx: DB['service_steps'] }, 'orders' | 'services' | 'service_steps' | 'nx', FullViewRow>
        )
          .select([
            'orders.step_id',
            'nx.id as next_step_id',
            'nx.description as next_step_description',
            'nx.button_title as next_step_button_title',
            'nx.events as next_step_events'
          ])
          .where('orders.public_id', '=', param('publicId')) as Compilable<MovableOrder>
    ),

    serviceStart: database.prepare<{ key: string }, ServiceStartRow>('orders.serviceStart', (db, param) =>
      serviceStartSelect(db, param('key'), locks)
    ),

    // What a create checks, in one statement: the service's start and whether the customer exists.
    createStart: database.prepare<{ key: string; customerId: string }, ServiceStartRow & { customer_found: number }>(
      'orders.createStart',
      (db, param) => serviceStartSelect(db, param('key'), locks, param('customerId'))
    ),

    stepAt: database.prepare<{ serviceId: number; position: number }, StepTarget>('orders.stepAt', (db, param) =>
      db
        .selectFrom('service_steps')
        .select(['id', 'position', 'description', 'events'])
        .where('service_id', '=', param('serviceId'))
        .where('position', '=', param('position'))
    ),

    customerExists: database.prepare<{ id: string }, { id: string }>('orders.customerExists', (db, param) =>
      db.selectFrom('customers').select('id').where('id', '=', param('id'))
    ),

    // Owner first, so a missing order and another customer's order are told apart before history.
    historyOf: database.prepare<{ publicId: string }, { customer_id: string } & HistoryRow>('orders.historyOf', (db, param) =>
      db
        .selectFrom('orders as o')
        .innerJoin('order_history as h', 'h.order_id', 'o.id')
        .select(['o.customer_id', 'h.at', 'h.type', 'h.position', 'h.description', 'h.actor', 'h.by'])
        .where('o.public_id', '=', param('publicId'))
        // Oldest first (D-56) by when each thing happened: a `tracked` entry is written by the
        // dispatcher, possibly after later entries, with the time its step was entered, and sorts
        // right after the step entry it follows, even among entries of the same millisecond.
        .orderBy('h.at')
        .orderBy((eb) => eb.fn.coalesce('h.follows', 'h.id'))
        .orderBy('h.id')
    ),

    // PostgreSQL only: the row locks a write takes before it reads the order (SQLite serialises writers).
    rowLocks: locks
      ? {
          // The order row for update and its service in share mode, in one statement. The order is
          // locked FOR NO KEY UPDATE (its id never changes): writes of one order queue, while rows that
          // merely reference it (history, outbox, receipt lines) need not wait. Should the order change
          // service while this waits for its lock, the re-check against the old service row drops it
          // and `lock` falls back to the two statements below.
          orderAndService: database.prepare<{ publicId: string }, { service_id: number }>('orders.lockOrderAndService', (db, param) =>
            db
              .selectFrom('orders as o')
              .innerJoin('services as s', 's.id', 'o.service_id')
              .select('o.service_id')
              .where('o.public_id', '=', param('publicId'))
              .forNoKeyUpdate(['o'])
              .forShare(['s'])
          ),
          // The order row for update, so moves and receipt changes of one order queue.
          order: database.prepare<{ publicId: string }, { service_id: number }>('orders.lockOrder', (db, param) =>
            db.selectFrom('orders').select('service_id').where('public_id', '=', param('publicId')).forNoKeyUpdate()
          ),
          // A service in share mode. Step changes take it for update, so step positions read after
          // this stay true until commit (D-42, D-55); orders of one service do not block each other.
          service: database.prepare<{ id: number }, never>('orders.shareService', (db, param) =>
            db.selectFrom('services').select('id').where('id', '=', param('id')).forShare()
          )
        }
      : undefined
  }
}

/** SQL of orders, their history and the step counters they keep; every statement compiled once per database. */
export function ordersRepository(database: StatementCompiler) {
  const statements = orderReads(database)
  const rowLocks = statements.rowLocks

  /** The service start with its step 1: from the row (SQLite), or read now, under the service's lock. */
  const withFirstStep = async (tx: Tx, row: ServiceStartRow): Promise<ServiceStart> => {
    const head = { service_id: row.service_id, service_name: row.service_name, step_count: row.step_count }
    if (row.step_id !== undefined) {
      return {
        ...head,
        step: { id: row.step_id, position: row.step_position!, description: row.step_description!, events: row.step_events! }
      }
    }
    const step = await statements.stepAt.first({ serviceId: row.service_id, position: 1 }, tx)
    if (step === undefined) throw new Error(`service ${row.service_id} has no step 1`)
    return { ...head, step }
  }

  /** PostgreSQL: locks the order's row and shares its service's; false when there is no such order. */
  const lockRows = async (tx: Tx, publicId: string): Promise<boolean> => {
    if (rowLocks === undefined) return true
    if ((await rowLocks.orderAndService.first({ publicId }, tx)) !== undefined) return true
    const head = await rowLocks.order.first({ publicId }, tx)
    if (head === undefined) return false
    await rowLocks.service.run({ id: head.service_id }, tx)
    return true
  }

  return {
    /** The full view row of one order, if there is one. */
    fullView: (publicId: string) => statements.fullView.first({ publicId }),
    /** The order for the rest of the transaction: its row locked, its service shared (PostgreSQL). */
    lock: async (tx: Tx, publicId: string): Promise<LockedOrder | undefined> =>
      (await lockRows(tx, publicId)) ? statements.locked.first({ publicId }, tx) : undefined,

    /** As `lock`, read as a receipt change needs it, with the catalogue item `itemId` (`ReceiptOrder`; 0 names none). */
    lockForReceipt: async (tx: Tx, publicId: string, itemId: number): Promise<ReceiptOrder | undefined> =>
      (await lockRows(tx, publicId)) ? statements.receiptOrder.first({ publicId, itemId }, tx) : undefined,

    /** As `lock`, read as a move needs it (`MovableOrder`). */
    lockForMove: async (tx: Tx, publicId: string): Promise<MovableOrder | undefined> =>
      (await lockRows(tx, publicId)) ? statements.movable.first({ publicId }, tx) : undefined,

    /** The step a move of this order enters, read along with it; undefined at the last step. */
    nextStep: (order: MovableOrder): (StepTarget & { buttonTitle: string }) | undefined =>
      // A left join: the four columns are all null or all set.
      order.next_step_id === null
        ? undefined
        : {
            id: order.next_step_id,
            position: order.position + 1,
            description: order.next_step_description!,
            buttonTitle: order.next_step_button_title!,
            events: order.next_step_events!
          },

    /** Holds another service in share mode (an order moving to it); no-op on SQLite. */
    shareService: async (tx: Tx, id: number): Promise<void> => {
      if (rowLocks !== undefined) await rowLocks.service.run({ id }, tx)
    },

    /** A service by name key and its first step, the service held in share mode (PostgreSQL). */
    serviceStart: async (tx: Tx, key: string): Promise<ServiceStart | undefined> => {
      const row = await statements.serviceStart.first({ key }, tx)
      return row === undefined ? undefined : withFirstStep(tx, row)
    },

    /**
     * A create's checks (D-50): the customer, then the service and its first step. One statement
     * when both exist; a missing service reads the customer again to tell which 404 it is.
     */
    createStart: async (tx: Tx, key: string, customerId: string): Promise<ServiceStart | 'no customer' | 'no service'> => {
      const row = await statements.createStart.first({ key, customerId }, tx)
      if (row === undefined)
        return (await statements.customerExists.first({ id: customerId }, tx)) === undefined ? 'no customer' : 'no service'
      return Number(row.customer_found) === 1 ? withFirstStep(tx, row) : 'no customer'
    },

    ...orderWrites(database),

    historyOf: (publicId: string) => statements.historyOf.rows({ publicId })
  }
}

export type OrdersRepository = ReturnType<typeof ordersRepository>
