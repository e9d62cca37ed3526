import type { StatementCompiler, Tx } from '../../db/statement.js'
import { FIELD_CHANGE_DESCRIPTIONS, type HistoryType } from '../orders/index.js'

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
 * The customer's journey, all the public page shows of the history: placed, each step reached,
 * closed and reopened. Never the shop's own entries: note and date edits (`updated` entries that
 * name the fields changed), receipt changes, and `tracked` entries, which repeat the step entry
 * they announce. An `updated` entry of any other description is a change of service, which put
 * the order at a step (D-53, D-56).
 */
const JOURNEY_TYPES: readonly HistoryType[] = ['created', 'moved', 'closed', 'reopened']

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
      .where((eb) =>
        eb.or([
          eb('type', 'in', [...JOURNEY_TYPES]),
          eb.and([eb('type', '=', 'updated'), eb('description', 'not in', [...FIELD_CHANGE_DESCRIPTIONS])])
        ])
      )
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
    /** The order's journey (JOURNEY_TYPES and changes of service), oldest first. */
    history: (orderId: number) => history.rows({ orderId })
  }
}

export type TrackingRepository = ReturnType<typeof trackingRepository>
