import type { Static } from 'typebox'
import { formatCents } from '../../common/numbers.js'
import type { TimeFormatter } from '../../common/time-format.js'
import { toServiceView } from '../catalogue/index.js'
import type { CreateTransactionResponse, HistoryResponse, TransactionView, UpdateTransactionResponse } from './orders.schemas.js'
import type { HistoryType, OrderStatus } from './orders.table.js'

/** One receipt line in the full-view row's JSON: id, item id, quantity, unit price in cents, title, image. */
export type ReceiptLineTuple = [number, number, number, number, string, string]

/** One row of the full-view query: the order at its step, its receipt lines as JSON text. */
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
  /** `ReceiptLineTuple[]` as JSON, ordered by line id; `[]` for an empty receipt. */
  receipt_lines: string
}

type Line = Static<typeof TransactionView>['receipt'][number]

const EMPTY_RECEIPT: readonly Line[] = [{ receipt_id: null, item_id: null, title: null, image_url: null, price: '0.00', quantity: null }]

/** The receipt lines of a full-view row, by line id. */
export function receiptLinesOf(order: FullViewRow): ReceiptLineTuple[] {
  return JSON.parse(order.receipt_lines) as ReceiptLineTuple[]
}

/**
 * Spec "Transaction (full view)" from its full-view row: amounts summed in integer cents and
 * formatted only here (D-54), dates in TIME_ZONE (D-51). `lines` are the row's receipt lines, or
 * what a receipt change made of them (receipts.service.ts).
 */
export function toTransactionView(
  order: FullViewRow,
  time: TimeFormatter,
  lines: readonly ReceiptLineTuple[] = receiptLinesOf(order)
): Static<typeof TransactionView> {
  const receipt: Line[] = new Array(lines.length)
  let totalCents = 0
  for (let i = 0; i < lines.length; i++) {
    const [lineId, itemId, quantity, unitPriceCents, title, imageUrl] = lines[i]!
    const cents = unitPriceCents * quantity
    totalCents += cents
    receipt[i] = {
      receipt_id: String(lineId),
      item_id: String(itemId),
      title,
      image_url: imageUrl,
      price: formatCents(cents),
      quantity: String(quantity)
    }
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
  by: string
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
      actor: row.actor,
      by: row.by
    }))
  }
}
