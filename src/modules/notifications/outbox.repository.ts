import type { Expression, Kysely, Transaction } from 'kysely'
import { newTimeOrderedId } from '../../common/ids.js'
import { type Param, type PreparedQuery, prepare } from '../../db/prepared.js'
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

/**
 * A stable public id per message, sent to receivers so they can drop duplicates (D-60). It sorts
 * by creation time: a change writes its messages at the end of the outbox's event_id index.
 */
export function newEventId(nowMs: number): string {
  return newTimeOrderedId('msg', nowMs)
}

/** The parameters of `outboxRows`: `now` and six per message, numbered from 0. */
export type OutboxRowParams = Record<string, string | number | null>

/**
 * The rows of an INSERT INTO outbox for `count` messages, in message order (so ids keep the
 * delivery order), their values the parameters `outboxRowParams` fills in. Shared by the writer
 * below and by statements that write a change and its messages at once (orders/step-entry.ts).
 */
export function outboxRows(
  count: number,
  p: Param<OutboxRowParams>,
  historyId: Expression<number | null> | number | null = p('history_id') as number | null
) {
  return Array.from({ length: count }, (_, i) => ({
    event_id: p(`event_id${i}`) as string,
    channel: p(`channel${i}`) as OutboxChannel,
    template: p(`template${i}`) as OutboxTemplate,
    order_id: p(`order_id${i}`) as number | null,
    customer_id: p(`customer_id${i}`) as string | null,
    history_id: historyId,
    payload: p(`payload${i}`) as string,
    status: 'pending' as const,
    attempts: 0,
    next_attempt_at: p('now') as number,
    claimed_by: null,
    claimed_until: null,
    last_error: null,
    created_at: p('now') as number,
    updated_at: p('now') as number,
    delivered_at: null
  }))
}

/** The parameter values of `outboxRows` for these messages, each with a new event id. */
export function outboxRowParams(messages: readonly OutboxMessage[], now: number, historyId: number | null = null): OutboxRowParams {
  const params: OutboxRowParams = { now, history_id: historyId }
  messages.forEach((message, i) => {
    params[`event_id${i}`] = newEventId(now)
    params[`channel${i}`] = message.channel
    params[`template${i}`] = message.template
    params[`order_id${i}`] = message.orderId
    params[`customer_id${i}`] = message.customerId
    params[`payload${i}`] = JSON.stringify(message.payload)
  })
  return params
}

/** Writes outbox rows; always inside the transaction of the change that caused them (D-60). */
export function outboxWriter(db: Kysely<DB>) {
  // One multi-row INSERT per number of messages (a step announces at most a few): one round trip
  // for all of a change's messages.
  const inserts = new Map<number, PreparedQuery<OutboxRowParams, unknown>>()
  const insertOf = (count: number) => {
    let insert = inserts.get(count)
    if (insert === undefined) {
      insert = prepare<OutboxRowParams, unknown>(db, (db, p) => db.insertInto('outbox').values(outboxRows(count, p)))
      inserts.set(count, insert)
    }
    return insert
  }

  return {
    /** Adds messages in order; they are delivered in id order per transaction. `historyId`: the step entry they announce. */
    async enqueue(trx: Transaction<DB>, messages: readonly OutboxMessage[], now: number, historyId: number | null = null): Promise<void> {
      if (messages.length === 0) return
      await insertOf(messages.length).run(trx, outboxRowParams(messages, now, historyId))
    }
  }
}

export type OutboxWriter = ReturnType<typeof outboxWriter>
