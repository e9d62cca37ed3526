import type { Static } from 'typebox'
import { formatCents } from '../../common/numbers.js'
import type { TimeFormatter } from '../../common/time-format.js'
import { toServiceView } from '../catalogue/services.views.js'
import type { CreateTransactionResponse, HistoryResponse, TransactionView, UpdateTransactionResponse } from './orders.schemas.js'
import type { HistoryType, OrderStatus } from './orders.table.js'

/** One row of the full-view query: the order at its step, joined with one receipt line (or none). */
export interface FullViewRow {
  id: number
  public_id: string
  code: number
  customer_id: string
  status: OrderStatus
  pickup_at: number
  delivery_at: number
  note: string
  service_id: string
  service_name: string
  step_count: number
  position: number
  description: string
  button_title: string
  events: string
  line_id: number | null
  item_id: number | null
  quantity: number | null
  unit_price_cents: number | null
  item_title: string | null
  item_image_url: string | null
}

type Line = Static<typeof TransactionView>['receipt'][number]

const EMPTY_RECEIPT: readonly Line[] = [
  { receipt_id: null, item_id: null, title: null, image_url: null, price: '0.00', quantity: null }
]

/**
 * Spec "Transaction (full view)" from the rows of one order (ordered by receipt line id):
 * amounts summed in integer cents and formatted only here (D-54), dates in TIME_ZONE (D-51).
 */
export function toTransactionView(rows: readonly FullViewRow[], time: TimeFormatter): Static<typeof TransactionView> {
  const order = rows[0]!
  const receipt: Line[] = []
  let totalCents = 0
  for (const row of rows) {
    if (row.line_id === null) continue
    const cents = row.unit_price_cents! * row.quantity!
    totalCents += cents
    receipt.push({
      receipt_id: String(row.line_id),
      item_id: String(row.item_id),
      title: row.item_title,
      image_url: row.item_image_url,
      price: formatCents(cents),
      quantity: String(row.quantity)
    })
  }
  const pickup = time.all(order.pickup_at)
  const delivery = time.all(order.delivery_at)
  return {
    transaction_id: order.public_id,
    transaction_code: String(order.code),
    customer_id: order.customer_id,
    pickup_date_time: pickup.dateTime,
    pickup_date: pickup.date,
    pickup_time: pickup.time,
    delivery_date_time: delivery.dateTime,
    delivery_date: delivery.date,
    delivery_time: delivery.time,
    note: order.note,
    service: toServiceView(order),
    status: order.status,
    receipt: receipt.length === 0 ? [...EMPTY_RECEIPT] : receipt,
    total: formatCents(totalCents)
  }
}

/** Groups full-view rows of several orders (each order's rows adjacent) into views, in row order. */
export function toTransactionViews(rows: readonly FullViewRow[], time: TimeFormatter): Static<typeof TransactionView>[] {
  const views: Static<typeof TransactionView>[] = []
  let start = 0
  for (let i = 1; i <= rows.length; i++) {
    if (i === rows.length || rows[i]!.id !== rows[start]!.id) {
      views.push(toTransactionView(rows.slice(start, i), time))
      start = i
    }
  }
  return views
}

/** What the short views are made from. */
export interface ShortViewSource {
  public_id: string
  code: number
  service_name: string
  pickup_at: number
  delivery_at: number
  note: string
  status: OrderStatus
}

/** The create answer: `transaction_code` as a number and `total` as `--` (spec). */
export function toCreateView(order: ShortViewSource, time: TimeFormatter): Static<typeof CreateTransactionResponse> {
  return {
    transaction_id: order.public_id,
    transaction_code: order.code,
    service_name: order.service_name,
    pickup_date: time.date(order.pickup_at),
    pickup_time: time.shortTime(order.pickup_at),
    delivery_date: time.date(order.delivery_at),
    delivery_time: time.shortTime(order.delivery_at),
    note: order.note,
    status: order.status,
    total: '--'
  }
}

/** The update answer (spec), in the same zone as every other response (D-51, D-53). */
export function toUpdateView(order: ShortViewSource, time: TimeFormatter): Static<typeof UpdateTransactionResponse> {
  return {
    transaction_id: order.public_id,
    service_name: order.service_name,
    pickup_date: time.date(order.pickup_at),
    pickup_time: time.shortTime(order.pickup_at),
    delivery_date: time.date(order.delivery_at),
    delivery_time: time.shortTime(order.delivery_at),
    note: order.note,
    status: order.status
  }
}

export interface HistoryRow {
  at: number
  type: HistoryType
  position: number
  description: string
  actor: string
}

/** D-56: the history of one order, oldest first. */
export function toHistoryView(transactionId: string, rows: readonly HistoryRow[]): Static<typeof HistoryResponse> {
  return {
    transaction_id: transactionId,
    history: rows.map((row) => ({
      at: new Date(row.at).toISOString(),
      type: row.type,
      position_number: String(row.position),
      description: row.description,
      actor: row.actor
    }))
  }
}
