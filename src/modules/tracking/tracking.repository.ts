import type { StatementCompiler, Tx } from '../../db/statement.js'
import type { HistoryType } from '../orders/index.js'

/** An order as the tracking use cases see it: its internal id and its owner. */
export interface TrackedOrder {
  id: number
  customer_id: string
}

/** Where a tracked order is now: what the public status page may show of it. */
export interface TrackingStatusRow {
  order_id: number
  service_name: string
  step_count: number
  position: number
  description: string
}

/** One history entry as the public status page may show it: no actor. */
export interface TrackingHistoryRow {
  at: number
  type: HistoryType
  position: number
  description: string
}

/**
 * History types the public page never shows: receipt changes name the items on the receipt
 * (no receipt on the tracking page).
 */
const PRIVATE_HISTORY_TYPES: readonly HistoryType[] = ['receipt_added', 'receipt_removed']

/** SQL of tracking links; tokens are only ever looked up by their SHA-256. */
export function trackingRepository(database: StatementCompiler) {
  const order = database.prepare<{ publicId: string }, TrackedOrder>('tracking.order', (db, param) =>
    db.selectFrom('orders').select(['id', 'customer_id']).where('public_id', '=', param('publicId'))
  )

  const sealedOf = database.prepare<{ orderId: number }, { sealed_token: string }>('tracking.sealedOf', (db, param) =>
    db.selectFrom('tracking_tokens').select('sealed_token').where('order_id', '=', param('orderId'))
  )

  // Of two first calls at once, one inserts and the other finds its row afterwards.
  const insert = database.prepare<{ orderId: number; tokenHash: string; sealed: string; now: number }, unknown>(
    'tracking.insert',
    (db, param) =>
      db
        .insertInto('tracking_tokens')
        .values({ order_id: param('orderId'), token_hash: param('tokenHash'), sealed_token: param('sealed'), created_at: param('now') })
        .onConflict((oc) => oc.column('order_id').doNothing())
  )

  // A new token for the order: the old one stops working in the same statement.
  const replace = database.prepare<{ orderId: number; tokenHash: string; sealed: string; now: number }, unknown>(
    'tracking.replace',
    (db, param) =>
      db
        .insertInto('tracking_tokens')
        .values({ order_id: param('orderId'), token_hash: param('tokenHash'), sealed_token: param('sealed'), created_at: param('now') })
        .onConflict((oc) =>
          oc.column('order_id').doUpdateSet({ token_hash: param('tokenHash'), sealed_token: param('sealed'), created_at: param('now') })
        )
  )

  const status = database.prepare<{ tokenHash: string }, TrackingStatusRow>('tracking.status', (db, param) =>
    db
      .selectFrom('tracking_tokens as t')
      .innerJoin('orders as o', 'o.id', 't.order_id')
      .innerJoin('services as s', 's.id', 'o.service_id')
      .innerJoin('service_steps as st', 'st.id', 'o.step_id')
      .select(['o.id as order_id', 's.name as service_name', 's.step_count', 'st.position', 'st.description'])
      .where('t.token_hash', '=', param('tokenHash'))
  )

  const history = database.prepare<{ orderId: number }, TrackingHistoryRow>('tracking.history', (db, param) =>
    db
      .selectFrom('order_history')
      .select(['at', 'type', 'position', 'description'])
      .where('order_id', '=', param('orderId'))
      .where('type', 'not in', [...PRIVATE_HISTORY_TYPES])
      // As the history reads (D-56): by time, a late-written `tracked` entry right after the step entry it follows.
      .orderBy('at')
      .orderBy((eb) => eb.fn.coalesce('follows', 'id'))
      .orderBy('id')
  )

  return {
    /** The order with this transaction id, if any. */
    order: (publicId: string) => order.first({ publicId }),
    /** The sealed live token of an order, if it has one. */
    sealedOf: async (orderId: number, tx?: Tx) => (await sealedOf.first({ orderId }, tx))?.sealed_token,
    /** Stores the order's first token; does nothing when another call stored one first. */
    insert: (tx: Tx, row: { orderId: number; tokenHash: string; sealed: string; now: number }) => insert.run(row, tx),
    /** Stores a new token for the order, replacing any other. */
    replace: (tx: Tx, row: { orderId: number; tokenHash: string; sealed: string; now: number }) => replace.run(row, tx),
    /** Where the order of a token is, or undefined for a token that is not live. */
    status: (tokenHash: string) => status.first({ tokenHash }),
    /** The order's history without receipt entries, oldest first. */
    history: (orderId: number) => history.rows({ orderId })
  }
}

export type TrackingRepository = ReturnType<typeof trackingRepository>
