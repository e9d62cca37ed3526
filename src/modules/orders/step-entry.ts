import type { Transaction } from 'kysely'
import type { DB } from '../../db/schema.js'
import { decodeEvents } from '../catalogue/events.js'
import type { OutboxMessage, OutboxWriter } from '../notifications/outbox.repository.js'
import type { OrdersRepository, StepTarget } from './orders.repository.js'
import type { Actor, HistoryType } from './orders.table.js'

/** The order entering a step, as the history and its events describe it. */
export interface StepEntry {
  order: { id: number; publicId: string; code: number; customerId: string }
  service: { name: string; stepCount: number }
  step: StepTarget
  type: Extract<HistoryType, 'created' | 'moved' | 'updated'>
  actor: Actor
  now: number
}

/**
 * Everything that happens when an order enters a step, in the caller's database transaction: a
 * history entry (D-56) and one outbox row per event of the step (D-60), so nothing is recorded
 * or announced for a change that rolls back. Counters are the caller's (they depend on where
 * the order came from).
 */
export async function recordStepEntry(trx: Transaction<DB>, orders: OrdersRepository, outbox: OutboxWriter, entry: StepEntry): Promise<void> {
  await orders.addHistory(trx, {
    orderId: entry.order.id,
    at: entry.now,
    type: entry.type,
    position: entry.step.position,
    description: entry.step.description,
    actor: entry.actor
  })
  const events = decodeEvents(entry.step.events)
  if (events.length === 0) return
  const messages: OutboxMessage[] = events.map((channel) => ({
    channel,
    template: 'step',
    orderId: entry.order.id,
    customerId: entry.order.customerId,
    payload: {
      transaction_id: entry.order.publicId,
      transaction_code: entry.order.code,
      service_name: entry.service.name,
      position: entry.step.position,
      total_steps: entry.service.stepCount,
      description: entry.step.description
    }
  }))
  await outbox.enqueue(trx, messages, entry.now)
}
