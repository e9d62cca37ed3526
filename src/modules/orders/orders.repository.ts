import { type Compilable, type ExpressionBuilder, type Kysely, type QueryCreator, type SelectQueryBuilder, sql } from 'kysely'
import type { Dialect } from '../../db/dialect.js'
import { prepare, type QueryTarget } from '../../db/prepared.js'
import type { DB } from '../../db/schema.js'
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
/** The parameters of `historyInsert`. */
export type HistoryParams = { orderId: number; at: number; type: HistoryType; position: number; description: string; actor: Actor }
/** A parameter stand-in (`prepare`'s) that names at least these parameters. */
export type ParamsOf<P> = (name: keyof P & string) => unknown
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
export function orderInsert(db: QueryCreator<DB>, p: ParamsOf<NewOrderParams>) {
  return db.insertInto('orders').values({
    public_id: p('publicId') as string,
    code: p('code') as number,
    customer_id: p('customerId') as string,
    service_id: p('serviceId') as number,
    step_id: p('stepId') as number,
    status: 'open',
    pickup_at: p('pickupAt') as number,
    delivery_at: p('deliveryAt') as number,
    note: p('note') as string,
    created_at: p('now') as number,
    updated_at: p('now') as number
  })
}

/**
 * The UPDATE putting an order at a step with a status, and the INSERT of a history entry: run on
 * their own below, and inside one statement by step-entry.ts on PostgreSQL, from the same builders.
 */
export function setStepUpdate(db: QueryCreator<DB>, p: ParamsOf<SetStepParams>) {
  return db
    .updateTable('orders')
    .set({ step_id: p('stepId') as number, status: p('status') as OrderStatus, updated_at: p('now') as number })
    .where('id', '=', p('id') as number)
}

/** The UPDATE counting one more order at a step (D-44): on its own, and in step-entry.ts's statement. */
export function countInUpdate(db: QueryCreator<DB>, p: ParamsOf<{ stepId: number }>) {
  return db
    .updateTable('service_steps')
    .set((eb) => ({ order_count: eb('order_count', '+', 1) }))
    .where('id', '=', p('stepId') as number)
}

export function historyInsert(db: QueryCreator<DB>, p: ParamsOf<HistoryParams>) {
  return db.insertInto('order_history').values({
    order_id: p('orderId') as number,
    at: p('at') as number,
    type: p('type') as HistoryType,
    position: p('position') as number,
    description: p('description') as string,
    actor: p('actor') as Actor
  })
}

/** The counters of a move: one more order at step `to`, one fewer at the other step updated (D-44). */
function countMoveSet(to: unknown) {
  return (eb: ExpressionBuilder<DB, 'service_steps'>) => ({
    order_count: eb(
      'order_count',
      '+',
      eb
        .case()
        .when('id', '=', to as number)
        .then(1)
        .else(-1)
        .end()
    )
  })
}

/**
 * PostgreSQL: both counters of a move, their rows locked in id order first (see `countMove`), the
 * locks taken in WITH (`step_locks`). `start` may hold more WITH clauses: step-entry.ts writes a
 * move's counters in the same statement as its order, history and outbox rows.
 */
export function countMoveLocked(start: QueryCreator<DB>, from: unknown, to: unknown) {
  return start
    .with('step_locks', (db) =>
      db
        .selectFrom('service_steps')
        .select('id')
        .where('id', 'in', [from as number, to as number])
        .orderBy('id')
        .forNoKeyUpdate()
    )
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
function serviceStartSelect(db: Kysely<DB>, p: ParamsOf<{ key: string }>, locks: boolean) {
  const service = db
    .selectFrom('services as s')
    .select(['s.id as service_id', 's.name as service_name', 's.step_count'])
    .where('s.name_key', '=', p('key') as string)
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

// Loosely typed: the callers cast the joined query to the shape they select from.
// biome-ignore lint/suspicious/noExplicitAny: a join helper over any of the orders' queries
type AnyQuery = SelectQueryBuilder<any, any, any>

/**
 * PostgreSQL: `table` joined as `alias` by `table.id = idRef`, as a LATERAL subquery with `OFFSET 0`,
 * which the planner cannot flatten into a plain join, so it looks the row up by key. Plain joins
 * against catalogue tables this small get hash joins that scan and hash the whole table on every
 * read of one order (see `fullViewSelect`).
 */
function joinByKey(
  query: AnyQuery,
  table: 'services' | 'service_steps' | 'items',
  alias: string,
  idRef: string,
  columns: readonly string[]
): AnyQuery {
  return query.innerJoinLateral(
    (eb) =>
      eb
        .selectFrom(table)
        .select(columns.map((column) => `${table}.${column}`) as never)
        .whereRef(`${table}.id`, '=', idRef)
        .offset(sql.lit(0))
        .as(alias),
    (join) => join.onTrue()
  )
}

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
  const byKey = dialect.name === 'postgres'
  const lineRows = db.selectFrom('receipt_lines as l')
  const plainLines = lineRows.innerJoin('items as i', 'i.id', 'l.item_id')
  const linesWithItems = byKey ? (joinByKey(lineRows, 'items', 'i', 'l.item_id', ['title', 'image_url']) as typeof plainLines) : plainLines
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
  const orders = db.selectFrom('orders')
  const joined = (byKey
    ? joinByKey(
        joinByKey(orders, 'services', 'services', 'orders.service_id', ['id', 'public_id', 'name', 'step_count']),
        'service_steps',
        'service_steps',
        'orders.step_id',
        ['id', 'position', 'description', 'button_title', 'events']
      )
    : orders
        .innerJoin('services', 'services.id', 'orders.service_id')
        .innerJoin('service_steps', 'service_steps.id', 'orders.step_id')) as unknown as SelectQueryBuilder<
    DB,
    'orders' | 'services' | 'service_steps',
    object
  >
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
    lines.as('receipt_lines')
  ]) as unknown as FullViewQuery
}

/** The order joined with its step and service (`LockedOrder`), by public id; looked up by key on PostgreSQL (`joinByKey`). */
function lockedSelect(db: Kysely<DB>, dialect: Dialect, p: ParamsOf<{ publicId: string }>) {
  const orders = db.selectFrom('orders as o')
  const joined = (dialect.name === 'postgres'
    ? joinByKey(joinByKey(orders, 'service_steps', 'st', 'o.step_id', ['position', 'description']), 'services', 's', 'o.service_id', [
        'step_count',
        'name'
      ])
    : orders
        .innerJoin('service_steps as st', 'st.id', 'o.step_id')
        .innerJoin('services as s', 's.id', 'o.service_id')) as unknown as SelectQueryBuilder<
    DB & { o: DB['orders']; st: DB['service_steps']; s: DB['services'] },
    'o' | 'st' | 's',
    object
  >
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
    .where('o.public_id', '=', p('publicId') as string)
}

/** SQL of orders, their receipts and history; every statement compiled once per database. */
export function ordersRepository(db: Kysely<DB>, dialect: Dialect) {
  const locks = dialect.supportsRowLocks

  const q = {
    fullView: prepare<{ publicId: string }, FullViewRow>(db, (db, p) =>
      fullViewSelect(db, dialect).where('orders.public_id', '=', p('publicId'))
    ),

    // The order joined with its step and service. On PostgreSQL it is read only after the rows are
    // locked (below): a lock taken in a join with the step would re-check a concurrently moved
    // order against the old step row and lose it.
    locked: prepare<{ publicId: string }, LockedOrder>(db, (db, p) => lockedSelect(db, dialect, p)),

    // What a receipt change reads, after the same locks as `locked`: the full view, and the
    // catalogue item it names in the same statement (`ReceiptOrder`).
    receiptOrder: prepare<{ publicId: string; itemId: number }, ReceiptOrder>(
      db,
      (db, p) =>
        fullViewSelect(db, dialect)
          .leftJoin('items as named', (join) => join.on('named.id', '=', p('itemId')).on('named.removed_at', 'is', null))
          .select([
            'orders.service_id as service_row_id',
            'named.id as item_id',
            'named.service_id as item_service_id',
            'named.price_cents as item_price_cents',
            'named.title as item_title',
            'named.image_url as item_image_url'
          ])
          .where('orders.public_id', '=', p('publicId')) as unknown as Compilable<ReceiptOrder>
    ),

    // What a move reads, after the same locks as `locked`: the full view and the next step.
    // The next step by key on PostgreSQL, as the full view's joins (fullViewSelect).
    movable: prepare<{ publicId: string }, MovableOrder>(
      db,
      (db, p) =>
        (dialect.name === 'postgres'
          ? fullViewSelect(db, dialect).leftJoinLateral(
              (eb) =>
                eb
                  .selectFrom('service_steps as nx')
                  .select(['nx.id', 'nx.description', 'nx.button_title', 'nx.events'])
                  .whereRef('nx.service_id', '=', 'orders.service_id')
                  .where('nx.position', '=', sql<number>`${sql.ref('service_steps.position')} + 1`)
                  .offset(sql.lit(0))
                  .as('nx'),
              (join) => join.onTrue()
            )
          : fullViewSelect(db, dialect).leftJoin('service_steps as nx', (join) =>
              join
                .onRef('nx.service_id', '=', 'orders.service_id')
                .on('nx.position', '=', sql<number>`${sql.ref('service_steps.position')} + 1`)
            )
        )
          .select([
            'orders.step_id',
            'nx.id as next_step_id',
            'nx.description as next_step_description',
            'nx.button_title as next_step_button_title',
            'nx.events as next_step_events'
          ])
          .where('orders.public_id', '=', p('publicId')) as unknown as Compilable<MovableOrder>
    ),

    // PostgreSQL only: the order row for update and its service in share mode, in one statement.
    // The order is locked FOR NO KEY UPDATE (its id never changes): writes of one order queue, while
    // rows that merely reference it (history, outbox, receipt lines) need not wait.
    // Should the order change service while this waits for its lock, the re-check against the old
    // service row drops it and `lock` falls back to the two statements below.
    lockOrderAndService: prepare<{ publicId: string }, { service_id: number }>(db, (db, p) =>
      db
        .selectFrom('orders as o')
        .innerJoin('services as s', 's.id', 'o.service_id')
        .select('o.service_id')
        .where('o.public_id', '=', p('publicId'))
        .forNoKeyUpdate(['o'])
        .forShare(['s'])
    ),

    // PostgreSQL only: the order row for update, so moves and receipt changes of one order queue.
    lockOrderRow: prepare<{ publicId: string }, { service_id: number }>(db, (db, p) =>
      db.selectFrom('orders').select('service_id').where('public_id', '=', p('publicId')).forNoKeyUpdate()
    ),

    // PostgreSQL only: a service in share mode. Step changes take it for update, so step positions
    // read after this stay true until commit (D-42, D-55); orders of one service do not block each other.
    shareService: prepare<{ id: number }, unknown>(db, (db, p) =>
      db.selectFrom('services').select('id').where('id', '=', p('id')).forShare()
    ),

    serviceStart: prepare<{ key: string }, ServiceStartRow>(db, (db, p) => serviceStartSelect(db, p, locks)),

    // What a create checks, in one statement: the service's start and whether the customer exists.
    createStart: prepare<{ key: string; customerId: string }, ServiceStartRow & { customer_found: number }>(db, (db, p) =>
      serviceStartSelect(db, p, locks).select((eb) =>
        eb
          .case()
          .when(eb.exists(eb.selectFrom('customers').select('customers.id').where('customers.id', '=', p('customerId'))))
          .then(1)
          .else(0)
          .end()
          .as('customer_found')
      )
    ),

    stepAt: prepare<{ serviceId: number; position: number }, StepTarget>(db, (db, p) =>
      db
        .selectFrom('service_steps')
        .select(['id', 'position', 'description', 'events'])
        .where('service_id', '=', p('serviceId'))
        .where('position', '=', p('position'))
    ),

    customerExists: prepare<{ id: string }, { id: string }>(db, (db, p) =>
      db.selectFrom('customers').select('id').where('id', '=', p('id'))
    ),

    // A random code that is taken yields no row and is drawn again (D-50).
    insert: prepare<NewOrderParams, { id: number }>(db, (db, p) =>
      orderInsert(db, p)
        .onConflict((oc) => oc.column('code').doNothing())
        .returning('id')
    ),

    setStep: prepare<SetStepParams, unknown>(db, (db, p) => setStepUpdate(db, p)),

    countIn: prepare<{ stepId: number }, unknown>(db, (db, p) => countInUpdate(db, p)),

    countOut: prepare<{ stepId: number }, unknown>(db, (db, p) =>
      db
        .updateTable('service_steps')
        .set((eb) => ({ order_count: eb('order_count', '-', 1) }))
        .where('id', '=', p('stepId'))
    ),

    // Both counters of a move in one statement. On PostgreSQL a plain UPDATE of the two rows locks
    // them in whatever order its plan reads them, and concurrent moves locking in opposite orders
    // deadlock (measured: 1 s stalls). There the rows are first locked by a SELECT … ORDER BY id
    // FOR NO KEY UPDATE in WITH (its locks are taken after the sort, so in id order), and the UPDATE
    // changes the rows that SELECT returned. NO KEY: the lock an UPDATE of a counter takes anyway.
    // FOR UPDATE also waits for the key-share locks of foreign-key checks: a service switch points
    // its order at the new step (such a check) before it moves the counters, and two concurrent
    // switches each waited for the other's check (a deadlock).
    countMove: prepare<{ from: number; to: number }, unknown>(db, (db, p) =>
      locks
        ? countMoveLocked(db, p('from'), p('to'))
        : db
            .updateTable('service_steps')
            .set(countMoveSet(p('to')))
            .where('id', 'in', [p('from'), p('to')])
    ),

    history: prepare<HistoryParams, unknown>(db, (db, p) => historyInsert(db, p)),
    // A step entry's id is kept by the outbox rows written with it (D-56 `follows`).
    historyWithId: prepare<HistoryParams, { id: number }>(db, (db, p) => historyInsert(db, p).returning('id')),

    // Owner first, so a missing order and another customer's order are told apart before history.
    historyOf: prepare<{ publicId: string }, { customer_id: string } & HistoryRow>(db, (db, p) =>
      db
        .selectFrom('orders as o')
        .innerJoin('order_history as h', 'h.order_id', 'o.id')
        .select(['o.customer_id', 'h.at', 'h.type', 'h.position', 'h.description', 'h.actor'])
        .where('o.public_id', '=', p('publicId'))
        // Oldest first (D-56) by when each thing happened: a `tracked` entry is written by the
        // dispatcher, possibly after later entries, with the time its step was entered, and sorts
        // right after the step entry it follows, even among entries of the same millisecond.
        .orderBy('h.at')
        .orderBy((eb) => eb.fn.coalesce('h.follows', 'h.id'))
        .orderBy('h.id')
    )
  }

  /** The service start with its step 1: from the row (SQLite), or read now, under the service's lock. */
  const withFirstStep = async (trx: Kysely<DB>, row: ServiceStartRow): Promise<ServiceStart> => {
    const head = { service_id: row.service_id, service_name: row.service_name, step_count: row.step_count }
    if (row.step_id !== undefined) {
      return {
        ...head,
        step: { id: row.step_id, position: row.step_position!, description: row.step_description!, events: row.step_events! }
      }
    }
    const step = await q.stepAt.first(trx, { serviceId: row.service_id, position: 1 })
    if (step === undefined) throw new Error(`service ${row.service_id} has no step 1`)
    return { ...head, step }
  }

  /** PostgreSQL: locks the order's row and shares its service's; false when there is no such order. */
  const lockRows = async (trx: Kysely<DB>, publicId: string): Promise<boolean> => {
    if (!locks) return true
    if ((await q.lockOrderAndService.first(trx, { publicId })) !== undefined) return true
    const head = await q.lockOrderRow.first(trx, { publicId })
    if (head === undefined) return false
    await q.shareService.run(trx, { id: head.service_id })
    return true
  }

  return {
    /** The full view row of one order, if there is one. */
    fullView: (target: QueryTarget, publicId: string) => q.fullView.first(target, { publicId }),
    /** The order for the rest of the transaction: its row locked, its service shared (PostgreSQL). */
    lock: async (trx: Kysely<DB>, publicId: string): Promise<LockedOrder | undefined> =>
      (await lockRows(trx, publicId)) ? q.locked.first(trx, { publicId }) : undefined,

    /** As `lock`, read as a receipt change needs it, with the catalogue item `itemId` (`ReceiptOrder`; 0 names none). */
    lockForReceipt: async (trx: Kysely<DB>, publicId: string, itemId: number): Promise<ReceiptOrder | undefined> =>
      (await lockRows(trx, publicId)) ? q.receiptOrder.first(trx, { publicId, itemId }) : undefined,

    /** As `lock`, read as a move needs it (`MovableOrder`). */
    lockForMove: async (trx: Kysely<DB>, publicId: string): Promise<MovableOrder | undefined> =>
      (await lockRows(trx, publicId)) ? q.movable.first(trx, { publicId }) : undefined,

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
    shareService: async (trx: Kysely<DB>, id: number): Promise<void> => {
      if (locks) await q.shareService.run(trx, { id })
    },

    /** A service by name key and its first step, the service held in share mode (PostgreSQL). */
    serviceStart: async (trx: Kysely<DB>, key: string): Promise<ServiceStart | undefined> => {
      const row = await q.serviceStart.first(trx, { key })
      return row === undefined ? undefined : withFirstStep(trx, row)
    },

    /**
     * A create's checks (D-50): the customer, then the service and its first step. One statement
     * when both exist; a missing service reads the customer again to tell which 404 it is.
     */
    createStart: async (trx: Kysely<DB>, key: string, customerId: string): Promise<ServiceStart | 'no customer' | 'no service'> => {
      const row = await q.createStart.first(trx, { key, customerId })
      if (row === undefined) return (await q.customerExists.first(trx, { id: customerId })) === undefined ? 'no customer' : 'no service'
      return Number(row.customer_found) === 1 ? withFirstStep(trx, row) : 'no customer'
    },

    /** Inserts an order; undefined when the code was taken. */
    insert: async (trx: Kysely<DB>, row: NewOrderParams) => (await q.insert.first(trx, row))?.id,

    setStep: (trx: Kysely<DB>, id: number, stepId: number, status: OrderStatus, now: number) =>
      q.setStep.run(trx, { id, stepId, status, now }),

    /**
     * Keeps per-step order counters exact in the same transaction as the order change (D-44).
     * Rows are touched in id order so two concurrent moves never wait on each other in a cycle.
     */
    moveCounters: async (trx: Kysely<DB>, from: number | null, to: number | null): Promise<void> => {
      if (from !== null && to !== null && from !== to) {
        await q.countMove.run(trx, { from, to })
        return
      }
      const changes: Array<[number, 'in' | 'out']> = []
      if (from !== null) changes.push([from, 'out'])
      if (to !== null) changes.push([to, 'in'])
      changes.sort((a, b) => a[0] - b[0])
      for (const [stepId, direction] of changes) {
        await (direction === 'in' ? q.countIn : q.countOut).run(trx, { stepId })
      }
    },

    addHistory: (trx: Kysely<DB>, entry: Parameters<typeof q.history.run>[1]) => q.history.run(trx, entry),
    /** Adds a history entry and answers its id. */
    addHistoryWithId: async (trx: Kysely<DB>, entry: HistoryParams): Promise<number> =>
      Number((await q.historyWithId.first(trx, entry))!.id),
    historyOf: (target: QueryTarget, publicId: string) => q.historyOf.rows(target, { publicId })
  }
}

export type OrdersRepository = ReturnType<typeof ordersRepository>
