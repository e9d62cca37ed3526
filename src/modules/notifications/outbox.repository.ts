import type { Expression } from 'kysely'
import { newTimeOrderedId } from '../../common/ids.js'
import type { Param, StatementCompiler, Tx } from '../../db/statement.js'
import type { OutboxChannel, OutboxStatus, OutboxTemplate } from './outbox.table.js'

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

/** What a `staff_invitation` e-mail needs (D-15); its set-password link holds a token, so it is sealed too. */
export interface StaffInvitationPayload {
  email: string
  name: string
  sealed_link: string
}

/** One message to write into the outbox, in the caller's database transaction. */
export type OutboxMessage =
  | { channel: OutboxChannel; template: 'step'; orderId: number; customerId: string; payload: StepEventPayload }
  | { channel: 'email'; template: 'password_reset'; orderId: null; customerId: string; payload: PasswordResetPayload }
  | { channel: 'email'; template: 'staff_invitation'; orderId: null; customerId: null; payload: StaffInvitationPayload }

/**
 * A stable public id per message, sent to receivers so they can drop duplicates (D-60). It sorts
 * by creation time: a change writes its messages at the end of the outbox's event_id index.
 */
export function newEventId(nowMs: number): string {
  return newTimeOrderedId('msg', nowMs)
}

/** The parameters of `outboxRows`: `now`, `history_id` and six per message, numbered from 0. */
export type OutboxRowParams = {
  now: number
  history_id: number | null
  [event: `event_id${number}`]: string
  [channel: `channel${number}`]: OutboxChannel
  [template: `template${number}`]: OutboxTemplate
  [order: `order_id${number}`]: number | null
  [customer: `customer_id${number}`]: string | null
  [payload: `payload${number}`]: string
}

/** Most messages one INSERT writes: a step announces each of its (at most three) events once. */
export const MAX_MESSAGES_PER_INSERT = 3

/**
 * The rows of an INSERT INTO outbox for `count` messages, in message order (so ids keep the
 * delivery order), their values the parameters `outboxRowParams` fills in. Shared by the writer
 * below and by statements that write a change and its messages at once (orders/step-entry.ts),
 * which may give the history entry's and the order's ids as expressions of their own.
 */
export function outboxRows(
  count: number,
  param: Param<OutboxRowParams>,
  historyId: Expression<number | null> | number | null = param('history_id'),
  orderId?: Expression<number>
) {
  return Array.from({ length: count }, (_, i) => ({
    event_id: param(`event_id${i}`),
    channel: param(`channel${i}`),
    template: param(`template${i}`),
    order_id: orderId ?? param(`order_id${i}`),
    customer_id: param(`customer_id${i}`),
    history_id: historyId,
    payload: param(`payload${i}`),
    status: 'pending' as const,
    attempts: 0,
    next_attempt_at: param('now'),
    claimed_by: null,
    claimed_until: null,
    last_error: null,
    created_at: param('now'),
    updated_at: param('now'),
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
export function outboxWriter(database: StatementCompiler) {
  // One multi-row INSERT per number of messages, up to three (a step's events): one round trip
  // for all of a change's messages. More (a test's batch) are written three at a time, in order.
  const inserts = Array.from({ length: MAX_MESSAGES_PER_INSERT }, (_, i) =>
    database.prepare<OutboxRowParams, never>(`outbox.insert.${i + 1}`, (db, param) =>
      db.insertInto('outbox').values(outboxRows(i + 1, param))
    )
  )

  return {
    /** Adds messages in order; they are delivered in id order per transaction. `historyId`: the step entry they announce. */
    async enqueue(tx: Tx, messages: readonly OutboxMessage[], now: number, historyId: number | null = null): Promise<void> {
      if (messages.length === 0) return
      if (messages.length <= MAX_MESSAGES_PER_INSERT) {
        await inserts[messages.length - 1]!.run(outboxRowParams(messages, now, historyId), tx)
        return
      }
      for (let from = 0; from < messages.length; from += MAX_MESSAGES_PER_INSERT) {
        const some = messages.slice(from, from + MAX_MESSAGES_PER_INSERT)
        await inserts[some.length - 1]!.run(outboxRowParams(some, now, historyId), tx)
      }
    }
  }
}

export type OutboxWriter = ReturnType<typeof outboxWriter>

/** The statuses of the backlog: delivered and skipped rows are history, not backlog. */
export const BACKLOG_STATUSES: readonly OutboxStatus[] = ['pending', 'dead']

/** Rows per channel and backlog status, read at each /metrics scrape (D-71); compiled once. */
export function outboxBacklog(database: StatementCompiler) {
  return database.prepare<Record<string, never>, { channel: OutboxChannel; status: OutboxStatus; n: number | string }>(
    'outbox.backlog',
    (db) =>
      db
        .selectFrom('outbox')
        .select(['channel', 'status', (eb) => eb.fn.countAll<number>().as('n')])
        .where('status', 'in', [...BACKLOG_STATUSES])
        .groupBy(['channel', 'status'])
  )
}
