import type { Static } from 'typebox'
import { formatCents } from '../../common/numbers.js'
import type { TimeFormatter } from '../../common/time-format.js'
import type { BoardRow } from './board.repository.js'
import type { BoardResponse } from './board.schemas.js'

type Board = Static<typeof BoardResponse>
type Step = Board['steps'][number]
type Card = Step['orders'][number]

/** An open order of a board row (its `order_*` columns set), as the filter reads it. */
export type BoardOrderRow = BoardRow & { order_id: string; code: number; first_name: string; last_name: string; email: string }

/** What a board is drawn with: now, the zone of D-51, and which orders the filter keeps. */
export interface BoardContext {
  now: number
  time: TimeFormatter
  keeps: (row: BoardOrderRow) => boolean
}

const MINUTE_MS = 60_000

/**
 * The board of one service from its rows (board.repository.ts), steps in order: each step's open
 * orders the filter keeps, overdue first (D-48: open, and at the step longer than its expected
 * minutes; the longest past it first), then by pickup time, then by code. Closed orders are those
 * the steps' counters count beyond the open ones read (D-44 counts every order at a step).
 */
export function toBoardView(rows: readonly BoardRow[], context: BoardContext): Board {
  const steps: Step[] = []
  let counted = 0
  let open = 0
  let step: { position: number; cards: { card: Card; late: number; pickup: number; code: number }[] } | undefined
  const finish = () => {
    if (step === undefined) return
    step.cards.sort((a, b) => b.late - a.late || a.pickup - b.pickup || a.code - b.code)
    const view = steps[steps.length - 1]!
    view.orders = step.cards.map((entry) => entry.card)
    view.open_count = view.orders.length
  }
  for (const row of rows) {
    if (step === undefined || step.position !== row.position) {
      finish()
      step = { position: row.position, cards: [] }
      counted += row.order_count
      steps.push({
        position_number: String(row.position),
        description: row.description,
        button_title: row.button_title,
        expected_minutes: row.expected_minutes,
        open_count: 0,
        orders: []
      })
    }
    if (row.order_id === null) continue
    open++
    const order = row as BoardOrderRow
    if (!context.keeps(order)) continue
    const enteredAt = order.step_entered_at!
    // How long past its expected time the order is: above 0 only when overdue.
    const late = row.expected_minutes === null ? 0 : Math.max(0, context.now - enteredAt - row.expected_minutes * MINUTE_MS)
    step.cards.push({ card: toCard(order, late > 0, context.time), late, pickup: order.pickup_at!, code: order.code })
  }
  finish()
  return { service_name: rows[0]!.service_name, steps, closed_count: counted - open }
}

function toCard(row: BoardOrderRow, overdue: boolean, time: TimeFormatter): Card {
  return {
    transaction_id: row.order_id,
    transaction_code: String(row.code),
    customer_id: row.customer_id!,
    customer_name: `${row.first_name} ${row.last_name}`.trim(),
    pickup_date_time: time.dateTime(row.pickup_at!),
    pickup_at: new Date(row.pickup_at! * 1000).toISOString(),
    entered_at: new Date(row.step_entered_at!).toISOString(),
    overdue,
    note: row.note!,
    total: formatCents(row.total_cents ?? 0)
  }
}
