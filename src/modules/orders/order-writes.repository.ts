import type { Expression, QueryCreator } from 'kysely'
import type { DB } from '../../db/schema.js'
import type { Param, StatementCompiler, Tx } from '../../db/statement.js'
import { stepCounterIn, stepCounterOut, stepCountersMove, stepCountersMoveLocked } from '../catalogue/index.js'
import { type Author, type HistoryType, type OrderStatus, STEP_ENTRY_TYPES } from './orders.table.js'

/** The parameters of `setStepUpdate`. */
export type SetStepParams = { id: number; stepId: number; status: OrderStatus; now: number }
/** The parameters of the update of an order's times, note and status (D-53). */
export type OrderUpdateParams = { id: number; pickupAt: number; deliveryAt: number; note: string; status: OrderStatus; now: number }
/** The parameters of `historyInsert`. */
export type HistoryParams = Author & { orderId: number; at: number; type: HistoryType; position: number; description: string }
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
    updated_at: param('now'),
    step_entered_at: param('now')
  })
}

/**
 * The UPDATE putting an order at a step with a status, and the INSERT of a history entry: run on
 * their own below, and inside one statement by step-entry.ts on PostgreSQL, from the same builders.
 */
export function setStepUpdate(db: QueryCreator<DB>, param: Param<SetStepParams>) {
  return db
    .updateTable('orders')
    .set((eb) => ({
      step_id: param('stepId'),
      status: param('status'),
      updated_at: param('now'),
      // D-48: entering another step starts its visit; closing at the step it is at does not (SET reads the old row).
      step_entered_at: eb.case().when('step_id', '=', param('stepId')).then(eb.ref('step_entered_at')).else(param('now')).end()
    }))
    .where('id', '=', param('id'))
}

/** The INSERT of a history entry; `orderId` in place of the parameter where the order is new in the same statement. */
export function historyInsert(db: QueryCreator<DB>, param: Param<HistoryParams>, orderId: Expression<number> | number = param('orderId')) {
  return db.insertInto('order_history').values({
    order_id: orderId,
    at: param('at'),
    type: param('type'),
    position: param('position'),
    description: param('description'),
    actor: param('actor'),
    by: param('by')
  })
}

/** The writes of orders and their history, and the step counters that follow them (D-44); compiled once. */
export function orderWrites(database: StatementCompiler) {
  const locks = database.dialect.supportsRowLocks

  const statements = {
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
          .set({ service_id: param('serviceId'), step_id: param('stepId'), updated_at: param('now'), step_entered_at: param('now') })
          .where('id', '=', param('id'))
    ),

    countIn: database.prepare<{ stepId: number }, never>('orders.countIn', (db, param) => stepCounterIn(db, param('stepId'))),

    countOut: database.prepare<{ stepId: number }, never>('orders.countOut', (db, param) => stepCounterOut(db, param('stepId'))),

    // Both counters of a move in one statement. On PostgreSQL a plain UPDATE of the two rows locks
    // them in whatever order its plan reads them, and concurrent moves locking in opposite orders
    // deadlock. There the rows are first locked by a SELECT … ORDER BY id FOR NO KEY UPDATE in WITH
    // (its locks are taken after the sort, so in id order), and the UPDATE changes the rows that
    // SELECT returned. NO KEY: the lock an UPDATE of a counter takes anyway. FOR UPDATE also waits
    // for the key-share locks of foreign-key checks: a service switch points its order at the new
    // step (such a check) before it moves the counters, and two concurrent switches each waited for
    // the other's check (a deadlock).
    countMove: database.prepare<{ from: number; to: number }, never>('orders.countMove', (db, param) =>
      locks ? stepCountersMoveLocked(db, param('from'), param('to')) : stepCountersMove(db, param('from'), param('to'))
    ),

    history: database.prepare<HistoryParams, never>('orders.history', (db, param) => historyInsert(db, param)),
    // A step entry's id is kept by the outbox rows written with it (D-56 `follows`).
    historyWithId: database.prepare<HistoryParams, { id: number }>('orders.historyWithId', (db, param) =>
      historyInsert(db, param).returning('id')
    )
  }

  return {
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
    addHistoryWithId: async (tx: Tx, entry: HistoryParams): Promise<number> => Number((await statements.historyWithId.first(entry, tx))!.id)
  }
}

/** A `tracked` history entry: when its step was entered, and the step entry it follows (D-56). */
export interface TrackedEntry {
  order_id: number
  at: number
  position: number
  description: string
  follows: number | null
}

/**
 * The INSERT of a `tracked` history entry by actor `system` (D-56): a `trak` event delivered by the
 * notifications module, which writes it in its own statement through this fragment (orders owns
 * order_history). A row written before migration 0011, or by an older process during a rolling
 * upgrade, has no history_id: the step entry it follows is the order's latest of that step and millisecond.
 */
export function trackedHistoryInsert(db: QueryCreator<DB>, param: Param<TrackedEntry>) {
  return db.insertInto('order_history').values({
    order_id: param('order_id'),
    at: param('at'),
    type: 'tracked',
    position: param('position'),
    description: param('description'),
    actor: 'system',
    by: '',
    follows: (eb) =>
      eb.fn.coalesce(
        eb.val(param('follows')),
        eb
          .selectFrom('order_history as h')
          .select((eb) => eb.fn.max('h.id').as('id'))
          .where('h.order_id', '=', param('order_id'))
          .where('h.at', '=', param('at'))
          .where('h.position', '=', param('position'))
          .where('h.type', 'in', [...STEP_ENTRY_TYPES])
      )
  })
}
