import { randomBytes } from 'node:crypto'
import type { Kysely, Transaction } from 'kysely'
import { prepare } from '../../db/prepared.js'
import type { DB } from '../../db/schema.js'
import type { OutboxChannel, OutboxTemplate } from './outbox.table.js'

/** What a `step` message needs: a transaction entered a step (D-60). Contact details are read at delivery. */
export interface StepEventPayload {
  transaction_id: string
  transaction_code: number
  service_name: string
  position: number
  total_steps: number
  description: string
}

/** What a `password_reset` e-mail needs (D-36); the link holds a token, so it is sealed with the data key. */
export interface PasswordResetPayload {
  email: string
  sealed_link: string
}

/** One message to write into the outbox, in the caller's database transaction. */
export type OutboxMessage =
  | { channel: OutboxChannel; template: 'step'; orderId: number; customerId: string; payload: StepEventPayload }
  | { channel: 'email'; template: 'password_reset'; orderId: null; customerId: string; payload: PasswordResetPayload }

/** A stable public id per message, sent to receivers so they can drop duplicates (D-60). */
export function newEventId(): string {
  return `msg_${randomBytes(15).toString('base64url')}`
}

/** Writes outbox rows; always inside the transaction of the change that caused them (D-60). */
export function outboxWriter(db: Kysely<DB>) {
  const insert = prepare<
    {
      event_id: string
      channel: OutboxChannel
      template: OutboxTemplate
      order_id: number | null
      customer_id: string | null
      payload: string
      now: number
    },
    unknown
  >(db, (db, p) =>
    db.insertInto('outbox').values({
      event_id: p('event_id'),
      channel: p('channel'),
      template: p('template'),
      order_id: p('order_id'),
      customer_id: p('customer_id'),
      payload: p('payload'),
      status: 'pending',
      attempts: 0,
      next_attempt_at: p('now'),
      claimed_by: null,
      claimed_until: null,
      last_error: null,
      created_at: p('now'),
      updated_at: p('now'),
      delivered_at: null
    })
  )

  return {
    /** Adds messages in order; they are delivered in id order per transaction. */
    async enqueue(trx: Transaction<DB>, messages: readonly OutboxMessage[], now: number): Promise<void> {
      for (const message of messages) {
        await insert.run(trx, {
          event_id: newEventId(),
          channel: message.channel,
          template: message.template,
          order_id: message.orderId,
          customer_id: message.customerId,
          payload: JSON.stringify(message.payload),
          now
        })
      }
    }
  }
}

export type OutboxWriter = ReturnType<typeof outboxWriter>
