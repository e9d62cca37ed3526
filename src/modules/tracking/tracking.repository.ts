import type { Kysely, Transaction } from 'kysely'
import { prepare, type QueryTarget } from '../../db/prepared.js'
import type { DB } from '../../db/schema.js'
import type { HistoryType } from '../orders/orders.table.js'

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
 * (issue 9: no receipt on the tracking page).
 */
export const PRIVATE_HISTORY_TYPES: readonly HistoryType[] = ['receipt_added', 'receipt_removed']

/** SQL of tracking links (issue 9); tokens are only ever looked up by their SHA-256. */
export function trackingRepository(db: Kysely<DB>) {
  const order = prepare<{ publicId: string }, TrackedOrder>(db, (db, p) =>
    db.selectFrom('orders').select(['id', 'customer_id']).where('public_id', '=', p('publicId'))
  )

  const sealedOf = prepare<{ orderId: number }, { sealed_token: string }>(db, (db, p) =>
    db.selectFrom('tracking_tokens').select('sealed_token').where('order_id', '=', p('orderId'))
  )

  // Of two first calls at once, one inserts and the other finds its row afterwards.
  const insert = prepare<{ orderId: number; tokenHash: string; sealed: string; now: number }, unknown>(db, (db, p) =>
    db
      .insertInto('tracking_tokens')
      .values({ order_id: p('orderId'), token_hash: p('tokenHash'), sealed_token: p('sealed'), created_at: p('now') })
      .onConflict((oc) => oc.column('order_id').doNothing())
  )

  // A new token for the order: the old one stops working in the same statement.
  const replace = prepare<{ orderId: number; tokenHash: string; sealed: string; now: number }, unknown>(db, (db, p) =>
    db
      .insertInto('tracking_tokens')
      .values({ order_id: p('orderId'), token_hash: p('tokenHash'), sealed_token: p('sealed'), created_at: p('now') })
      .onConflict((oc) =>
        oc.column('order_id').doUpdateSet({ token_hash: p('tokenHash'), sealed_token: p('sealed'), created_at: p('now') })
      )
  )

  const status = prepare<{ tokenHash: string }, TrackingStatusRow>(db, (db, p) =>
    db
      .selectFrom('tracking_tokens as t')
      .innerJoin('orders as o', 'o.id', 't.order_id')
      .innerJoin('services as s', 's.id', 'o.service_id')
      .innerJoin('service_steps as st', 'st.id', 'o.step_id')
      .select(['o.id as order_id', 's.name as service_name', 's.step_count', 'st.position', 'st.description'])
      .where('t.token_hash', '=', p('tokenHash'))
  )

  const history = prepare<{ orderId: number }, TrackingHistoryRow>(db, (db, p) =>
    db
      .selectFrom('order_history')
      .select(['at', 'type', 'position', 'description'])
      .where('order_id', '=', p('orderId'))
      .where('type', 'not in', [...PRIVATE_HISTORY_TYPES])
      // As the history reads (D-56): by time, a late-written `tracked` entry right after the step entry it follows.
      .orderBy('at')
      .orderBy((eb) => eb.fn.coalesce('follows', 'id'))
      .orderBy('id')
  )

  return {
    /** The order with this transaction id, if any. */
    order: (target: QueryTarget, publicId: string) => order.first(target, { publicId }),
    /** The sealed live token of an order, if it has one. */
    sealedOf: async (target: QueryTarget, orderId: number) => (await sealedOf.first(target, { orderId }))?.sealed_token,
    /** Stores the order's first token; does nothing when another call stored one first. */
    insert: (trx: Transaction<DB>, row: { orderId: number; tokenHash: string; sealed: string; now: number }) => insert.run(trx, row),
    /** Stores a new token for the order, replacing any other. */
    replace: (trx: Transaction<DB>, row: { orderId: number; tokenHash: string; sealed: string; now: number }) => replace.run(trx, row),
    /** Where the order of a token is, or undefined for a token that is not live. */
    status: (target: QueryTarget, tokenHash: string) => status.first(target, { tokenHash }),
    /** The order's history without receipt entries, oldest first. */
    history: (target: QueryTarget, orderId: number) => history.rows(target, { orderId })
  }
}

export type TrackingRepository = ReturnType<typeof trackingRepository>
