import { type ChannelSet, type DeliveryResult, failed, type OutboxDelivery } from './channels/channel.js'
import { describeError } from './channels/errors.js'
import type { ClaimedRow } from './outbox-claims.repository.js'

/**
 * Hands one claimed row to its channel (D-60): its payload parsed, and the delivery bounded by
 * `timeoutMs`. Every failure, a hung channel's too, comes back as a result, never as a rejection.
 */
export async function deliverRow(row: ClaimedRow, channels: ChannelSet, timeoutMs: number): Promise<DeliveryResult> {
  let payload: unknown
  try {
    payload = JSON.parse(row.payload)
  } catch {
    return failed('the message payload is not JSON', true)
  }
  const message: OutboxDelivery = {
    id: row.id,
    eventId: row.event_id,
    channel: row.channel,
    template: row.template,
    orderId: row.order_id,
    customerId: row.customer_id,
    historyId: row.history_id === null ? null : Number(row.history_id),
    payload,
    attempts: row.attempts,
    createdAt: row.created_at,
    firstAttempt: row.attempts === 0 && row.last_error === null
  }
  const channel = channels[row.channel]
  if (channel === undefined) return failed(`no channel ${row.channel}`, true)
  const signal = AbortSignal.timeout(timeoutMs)
  try {
    return await settleBy(channel.deliver(message, signal), signal)
  } catch (error) {
    return failed(describeError(error))
  }
}

// The delivery's own promise, or the signal's time-out, whichever comes first: a channel that hangs
// cannot hold a batch (and its leases) past the time-out.
function settleBy<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      }
    )
  })
}
