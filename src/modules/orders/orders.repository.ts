import {
  type Compilable,
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type QueryCreator,
  type SelectQueryBuilder,
  sql
} from 'kysely'
import type { Dialect } from '../../db/dialect.js'
import type { DB } from '../../db/schema.js'
import type { Param, StatementCompiler, Tx } from '../../db/statement.js'
import type { Actor, HistoryType, OrderStatus } from './orders.table.js'
import type { FullViewRow, HistoryRow } from './orders.views.js'

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

/**
 * An order as a receipt change reads it once its row is locked: its full view, its service's row
 * id, and the catalogue item the change names (all five `item_*` null when there is no such item,
 * or it was removed). The change answers from this and what it wrote, with no read after its
 * writes (issue 7), as a move does.
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
 * what it changes, with no read after its writes (issue 7).
 */
export interface MovableOrder extends FullViewRow {
  step_id: number
  next_step_id: number | null
  next_step_description: string | null
  next_step_button_title: string | null
  next_step_events: string | null
}

/** A step to enter: where it is and what it announces. */
export interface StepTarget {
  id: number
  position: number
  description: string
  events: string
}

/** The parameters of `setStepUpdate`. */
export type SetStepParams = { id: number; stepId: number; status: OrderStatus; now: number }
/** The parameters of the update of an order's times, note and status (D-53). */
export type OrderUpdateParams = { id: number; pickupAt: number; deliveryAt: number; note: string; status: OrderStatus; now: number }
/** The parameters of `historyInsert`. */
export type HistoryParams = { orderId: number; at: number; type: HistoryType; position: number; description: string; actor: Actor }
/** The parameters of `orderInsert`: a new order, open at its service's first step (D-50). */
export type NewOrderParams = {
  publicId: string
  code: number
  customerId: string
  serviceId: number
  stepId: number
  pickupAt: number
  deliveryAt: number
  note: string
  now: number
}

/** The INSERT of a new order: on its own below, and inside one statement by step-entry.ts on PostgreSQL. */
export function orderInsert(db: QueryCreator<DB>, param: Param<NewOrderParams>) {
  return db.insertInto('orders').values({
    public_id: param('publicId'),
    code: param('code'),
    customer_id: param('customerId'),
    service_id: param('serviceId'),
    step_id: param('stepId'),
    status: 'open',
    pickup_at: param('pickupAt'),
    delivery_at: param('deliveryAt'),
    note: param('note'),
    created_at: param('now'),
    updated_at: param('now')
  })
}

/**
 * The UPDATE putting an order at a step with a status, and the INSERT of a history entry: run on
 * their own below, and inside one statement by step-entry.ts on PostgreSQL, from the same builders.
 */
export function setStepUpdate(db: QueryCreator<DB>, param: Param<SetStepParams>) {
  return db
    .updateTable('orders')
    .set({ step_id: param('stepId'), status: param('status'), updated_at: param('now') })
    .where('id', '=', param('id'))
}

/** The UPDATE counting one more order at a step (D-44): on its own, and in step-entry.ts's statement. */
export function countInUpdate(db: QueryCreator<DB>, param: Param<{ stepId: number }>) {
  return db
    .updateTable('service_steps')
    .set((eb) => ({ order_count: eb('order_count', '+', 1) }))
    .where('id', '=', param('stepId'))
}

/** The INSERT of a history entry; `orderId` in place of the parameter where the order is new in the same statement. */
export function historyInsert(db: QueryCreator<DB>, param: Param<HistoryParams>, orderId: Expression<number> | number = param('orderId')) {
  return db.insertInto('order_history').values({
    order_id: orderId,
    at: param('at'),
    type: param('type'),
    position: param('position'),
    description: param('description'),
    actor: param('actor')
  })
}

/** The counters of a move: one more order at step `to`, one fewer at the other step updated (D-44). */
function countMoveSet(to: number) {
  return (eb: ExpressionBuilder<DB, 'service_steps'>) => ({
    order_count: eb('order_count', '+', eb.case().when('id', '=', to).then(1).else(-1).end())
  })
}

/**
 * PostgreSQL: both counters of a move, their rows locked in id order first (see `countMove`), the
 * locks taken in WITH (`step_locks`). `start` may hold more WITH clauses: step-entry.ts writes a
 * move's counters in the same statement as its order, history and outbox rows.
 */
export function countMoveLocked(start: QueryCreator<DB>, from: number, to: number) {
  return start
    .with('step_locks', (db) => db.selectFrom('service_steps').select('id').where('id', 'in', [from, to]).orderBy('id').forNoKeyUpdate())
    .updateTable('service_steps')
    .set(countMoveSet(to))
    .where('id', 'in', (eb) => eb.selectFrom('step_locks').select('step_locks.id'))
}

/** A service as an order enters it: its name, its number of steps and its first step. */
export interface ServiceStart {
  service_id: number
  service_name: string
  step_count: number
  step: StepTarget
}

/** A service start as read: on SQLite with its step 1's columns, on PostgreSQL without (read after the lock). */
type ServiceStartRow = Omit<ServiceStart, 'step'> & {
  step_id?: number
  step_position?: number
  step_description?: string
  step_events?: string
}

/**
 * A service by name key. On SQLite, joined with its step 1: one statement. On PostgreSQL the service
 * row is held in share mode and its step 1 is read by the next statement: step changes lock the
 * service for update, and a share lock taken in a join would, once granted, re-check the join
 * against the step row as it was before that change (a removed step 1, say).
 */
function serviceStartSelect(db: Kysely<DB>, param: Param<{ key: string }>, locks: boolean) {
  const service = db
    .selectFrom('services as s')
    .select(['s.id as service_id', 's.name as service_name', 's.step_count'])
    .where('s.name_key', '=', param('key'))
  if (locks) return service.forShare(['s']) as unknown as typeof service
  return service
    .innerJoin('service_steps as st', (join) => join.onRef('st.service_id', '=', 's.id').on('st.position', '=', 1))
    .select([
      'st.id as step_id',
      'st.position as step_position',
      'st.description as step_description',
      'st.events as step_events'
    ]) as unknown as typeof service
}

type FullViewQuery = SelectQueryBuilder<DB, 'orders' | 'services' | 'service_steps', FullViewRow>

/**
 * The joins and columns every full view is read with: one query and one row per order, its receipt
 * lines as one JSON text (`ReceiptLineTuple`s by line id), so no N+1 and no order columns repeated
 * per line (issue 5, issue 7).
 *
 * On PostgreSQL the service, the step and each line's item are looked up by key (`joinByKey`):
 * with plain joins every read of one order scanned and hashed all the services, steps and items
 * (600 in the bench) again, 0.12 ms of the statement against 0.05 (EXPLAIN ANALYZE of the generic
 * plan, BENCHMARKS.md). SQLite's planner looks them up by key anyway, so it keeps the plain joins.
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
function lockedSelect(db: Kysely<DB>, dialect: Dialect, param: Param<{ publicId: string }>) {
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

/** SQL of orders, their receipts and history; every statement compiled once per database. */
export function ordersRepository(database: StatementCompiler) {
  const { dialect } = database
  const locks = dialect.supportsRowLocks

  const statements = {
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
      serviceStartSelect(db, param, locks)
    ),

    // What a create checks, in one statement: the service's start and whether the customer exists.
    createStart: database.prepare<{ key: string; customerId: string }, ServiceStartRow & { customer_found: number }>(
      'orders.createStart',
      (db, param) =>
        serviceStartSelect(db, param, locks).select((eb) =>
          eb
            .case()
            .when(eb.exists(eb.selectFrom('customers').select('customers.id').where('customers.id', '=', param('customerId'))))
            .then(1)
            .else(0)
            .end()
            .as('customer_found')
        )
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

    // A random code that is taken yields no row and is drawn again (D-50).
    insert: database.prepare<NewOrderParams, { id: number }>('orders.insert', (db, param) =>
      orderInsert(db, param)
        .onConflict((oc) => oc.column('code').doNothing())
        .returning('id')
    ),

    setStep: database.prepare<SetStepParams, never>('orders.setStep', (db, param) => setStepUpdate(db, param)),

    // D-53: the fields an update may change, all at once (the ones not sent keep their values).
    update: database.prepare<OrderUpdateParams, never>('orders.update', (db, param) =>
      db
        .updateTable('orders')
        .set({
          pickup_at: param('pickupAt'),
          delivery_at: param('deliveryAt'),
          note: param('note'),
          status: param('status'),
          updated_at: param('now')
        })
        .where('id', '=', param('id'))
    ),

    // D-53: an order moved to step 1 of another service.
    changeService: database.prepare<{ id: number; serviceId: number; stepId: number; now: number }, never>(
      'orders.changeService',
      (db, param) =>
        db
          .updateTable('orders')
          .set({ service_id: param('serviceId'), step_id: param('stepId'), updated_at: param('now') })
          .where('id', '=', param('id'))
    ),

    countIn: database.prepare<{ stepId: number }, never>('orders.countIn', (db, param) => countInUpdate(db, param)),

    countOut: database.prepare<{ stepId: number }, never>('orders.countOut', (db, param) =>
      db
        .updateTable('service_steps')
        .set((eb) => ({ order_count: eb('order_count', '-', 1) }))
        .where('id', '=', param('stepId'))
    ),

    // Both counters of a move in one statement. On PostgreSQL a plain UPDATE of the two rows locks
    // them in whatever order its plan reads them, and concurrent moves locking in opposite orders
    // deadlock. There the rows are first locked by a SELECT … ORDER BY id FOR NO KEY UPDATE in WITH
    // (its locks are taken after the sort, so in id order), and the UPDATE changes the rows that
    // SELECT returned. NO KEY: the lock an UPDATE of a counter takes anyway. FOR UPDATE also waits
    // for the key-share locks of foreign-key checks: a service switch points its order at the new
    // step (such a check) before it moves the counters, and two concurrent switches each waited for
    // the other's check (a deadlock).
    countMove: database.prepare<{ from: number; to: number }, never>('orders.countMove', (db, param) =>
      locks
        ? countMoveLocked(db, param('from'), param('to'))
        : db
            .updateTable('service_steps')
            .set(countMoveSet(param('to')))
            .where('id', 'in', [param('from'), param('to')])
    ),

    history: database.prepare<HistoryParams, never>('orders.history', (db, param) => historyInsert(db, param)),
    // A step entry's id is kept by the outbox rows written with it (D-56 `follows`).
    historyWithId: database.prepare<HistoryParams, { id: number }>('orders.historyWithId', (db, param) =>
      historyInsert(db, param).returning('id')
    ),

    // Owner first, so a missing order and another customer's order are told apart before history.
    historyOf: database.prepare<{ publicId: string }, { customer_id: string } & HistoryRow>('orders.historyOf', (db, param) =>
      db
        .selectFrom('orders as o')
        .innerJoin('order_history as h', 'h.order_id', 'o.id')
        .select(['o.customer_id', 'h.at', 'h.type', 'h.position', 'h.description', 'h.actor'])
        .where('o.public_id', '=', param('publicId'))
        // Oldest first (D-56) by when each thing happened: a `tracked` entry is written by the
        // dispatcher, possibly after later entries, with the time its step was entered, and sorts
        // right after the step entry it follows, even among entries of the same millisecond.
        .orderBy('h.at')
        .orderBy((eb) => eb.fn.coalesce('h.follows', 'h.id'))
        .orderBy('h.id')
    )
  }

  // PostgreSQL only: the row locks a write takes before it reads the order (SQLite serialises writers).
  const rowLocks = locks
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

    /** Inserts an order; undefined when the code was taken. */
    insert: async (tx: Tx, row: NewOrderParams) => (await statements.insert.first(row, tx))?.id,

    setStep: (tx: Tx, id: number, stepId: number, status: OrderStatus, now: number) =>
      statements.setStep.run({ id, stepId, status, now }, tx),

    /** Writes the order's times, note and status (D-53). */
    update: (tx: Tx, row: OrderUpdateParams) => statements.update.run(row, tx),

    /** Puts the order at a step of another service (D-53); the counters are the caller's. */
    changeService: (tx: Tx, id: number, serviceId: number, stepId: number, now: number) =>
      statements.changeService.run({ id, serviceId, stepId, now }, tx),

    /**
     * Keeps per-step order counters exact in the same transaction as the order change (D-44).
     * Rows are touched in id order so two concurrent moves never wait on each other in a cycle.
     */
    moveCounters: async (tx: Tx, from: number | null, to: number | null): Promise<void> => {
      if (from !== null && to !== null && from !== to) {
        await statements.countMove.run({ from, to }, tx)
        return
      }
      const changes: Array<[number, 'in' | 'out']> = []
      if (from !== null) changes.push([from, 'out'])
      if (to !== null) changes.push([to, 'in'])
      changes.sort((a, b) => a[0] - b[0])
      for (const [stepId, direction] of changes) {
        await (direction === 'in' ? statements.countIn : statements.countOut).run({ stepId }, tx)
      }
    },

    addHistory: (tx: Tx, entry: HistoryParams) => statements.history.run(entry, tx),
    /** Adds a history entry and answers its id. */
    addHistoryWithId: async (tx: Tx, entry: HistoryParams): Promise<number> =>
      Number((await statements.historyWithId.first(entry, tx))!.id),
    historyOf: (publicId: string) => statements.historyOf.rows({ publicId })
  }
}

export type OrdersRepository = ReturnType<typeof ordersRepository>
