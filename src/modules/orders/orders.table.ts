import type { Generated } from 'kysely'

/** Status of an order (the wire calls orders transactions). */
export const ORDER_STATUSES = ['open', 'closed'] as const
export type OrderStatus = (typeof ORDER_STATUSES)[number]

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
  // When the order entered its step: set by every change of step (create, move, service change),
  // not by closing at the last step nor by any other change; open orders past the step's expected
  // minutes are overdue (D-48).
  step_entered_at: number
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

export const HISTORY_TYPES = ['created', 'moved', 'closed', 'reopened', 'updated', 'receipt_added', 'receipt_removed', 'tracked'] as const
export type HistoryType = (typeof HISTORY_TYPES)[number]

/** The entries of an order entering a step: those a step's events (D-60) announce. */
export const STEP_ENTRY_TYPES = ['created', 'moved', 'updated'] as const satisfies readonly HistoryType[]

export const ACTORS = ['staff', 'customer', 'app', 'admin', 'system'] as const
export type Actor = (typeof ACTORS)[number]

/** Who a history entry says did it (D-56): the actor and, by name (D-17), the staff member or API key. */
export type Author = { actor: Actor; by: string }

/** `order_history`: what happened to an order, oldest first (D-56). */
export interface OrderHistoryTable {
  id: Generated<number>
  order_id: number
  at: number
  type: HistoryType
  position: number
  description: string
  actor: Actor
  // Who did it by name (D-17): the staff member's or API key's; "" for customers and the system.
  by: Generated<string>
  // A `tracked` entry: the id of the step entry it announces, which it sorts right after (D-56).
  follows: number | null
}
