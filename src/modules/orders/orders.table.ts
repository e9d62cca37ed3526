import type { Generated } from 'kysely'

/** Status of an order (the wire calls orders transactions). */
export type OrderStatus = 'open' | 'closed'

/** `orders`: what the wire calls transactions. `id` is internal; `public_id` is the transaction_id. */
export interface OrdersTable {
  id: Generated<number>
  public_id: string
  code: number
  customer_id: string
  service_id: number
  step_id: number
  status: OrderStatus
  pickup_at: number
  delivery_at: number
  note: string
  created_at: number
  updated_at: number
}

/** `receipt_lines`: one line per item on an order's receipt, unit price copied at first add (D-54). */
export interface ReceiptLinesTable {
  id: Generated<number>
  order_id: number
  item_id: number
  unit_price_cents: number
  quantity: number
  created_at: number
}

export type HistoryType =
  | 'created'
  | 'moved'
  | 'closed'
  | 'reopened'
  | 'updated'
  | 'receipt_added'
  | 'receipt_removed'
  | 'tracked'

export type Actor = 'staff' | 'customer' | 'app' | 'admin' | 'system'

/** `order_history`: what happened to an order, oldest first (D-56). */
export interface OrderHistoryTable {
  id: Generated<number>
  order_id: number
  at: number
  type: HistoryType
  position: number
  description: string
  actor: Actor
}
