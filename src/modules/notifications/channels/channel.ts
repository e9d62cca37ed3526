import type { Tx } from '../../../db/statement.js'
import type { OutboxChannel, OutboxTemplate } from '../outbox.table.js'

/** One claimed outbox row as a channel sees it: the payload parsed, nothing else of the table. */
export interface OutboxDelivery {
  readonly id: number
  /** Stable across redeliveries; receivers drop duplicates by it (D-60). */
  readonly eventId: string
  readonly channel: OutboxChannel
  readonly template: OutboxTemplate
  readonly orderId: number | null
  readonly customerId: string | null
  /** A step event: the history entry of the step entry it announces (D-56), null for rows older than that. */
  readonly historyId: number | null
  readonly payload: unknown
  /** Failures so far. */
  readonly attempts: number
  /** When the event happened (the change that wrote the row), whenever it is delivered. */
  readonly createdAt: number
  /** No outcome of this row was recorded yet: the first attempt ever (a retried dead row is not). */
  readonly firstAttempt: boolean
}

/**
 * Work done in the short database transaction that records an attempt's outcome, and only if this
 * dispatcher still holds the row: together with `firstAttempt`, that is what makes such work
 * happen once per row (D-56 history).
 */
export type OnRecorded = (tx: Tx, now: number) => Promise<void>

/** What became of one delivery attempt. */
export type DeliveryResult =
  | { readonly kind: 'delivered'; readonly onDelivered?: OnRecorded }
  /** Nothing to send and nothing to retry (a customer without a phone, D-60); the reason is recorded. */
  | { readonly kind: 'skipped'; readonly reason: string }
  /**
   * Retried with backoff, unless `permanent` (retrying cannot help): then dead at once. `retryAfter`:
   * the receiver's HTTP Retry-After as sent (seconds, or a date the dispatcher reads against its own
   * clock); the backoff is never shorter than it asks.
   */
  | {
      readonly kind: 'failed'
      readonly error: string
      readonly permanent?: boolean
      readonly retryAfter?: string
      readonly onFailed?: OnRecorded
    }

/** A way out for outbox rows of one `channel` value. */
export interface Channel {
  /**
   * Delivers one message. Called outside any database transaction; `signal` aborts when the
   * dispatcher's delivery time-out passes. Throwing counts as a retryable failure.
   */
  deliver(message: OutboxDelivery, signal: AbortSignal): Promise<DeliveryResult>
  /** Releases connections (SMTP pool); called once when the dispatcher stops. */
  close?(): Promise<void>
}

/** The three channels of the spec's step events (D-60). */
export type ChannelSet = Readonly<Record<OutboxChannel, Channel>>

/** A retryable failure with a message fit for `last_error` and logs (no secrets, no URLs). */
export function failed(error: string, permanent = false): DeliveryResult {
  return { kind: 'failed', error, permanent }
}

/** A message that cannot be delivered by this channel, whatever happens: dead at once. */
export function unsupported(message: OutboxDelivery): DeliveryResult {
  return failed(`the ${message.channel} channel cannot deliver a ${message.template} message`, true)
}
