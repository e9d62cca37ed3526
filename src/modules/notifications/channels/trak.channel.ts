import { Webhook } from 'standardwebhooks'
import type { Clock } from '../../../common/clock.js'
import type { NotificationsRepository } from '../notifications.repository.js'
import type { StepEventPayload } from '../outbox.repository.js'
import { type Channel, failed, type OnRecorded, unsupported } from './channel.js'
import { httpTarget, postJson } from './http.js'
import { stepPayload } from './payloads.js'

/** Where tracking goes (D-60): always the history; also WEBHOOK_URL, signed with WEBHOOK_SECRET. */
export interface TrakSettings {
  readonly webhookUrl: string | null
  readonly webhookSecret: string | null
}

/** What the trak channel is built from. */
export interface TrakChannelDeps {
  settings: TrakSettings
  repository: NotificationsRepository
  clock: Clock
}

/** The webhook's JSON body: Standard Webhooks' recommended `{type, timestamp, data}` shape, wire names. */
function stepEnteredEvent(payload: StepEventPayload, at: Date) {
  return {
    type: 'transaction.step_entered',
    timestamp: at.toISOString(),
    data: {
      transaction_id: payload.transaction_id,
      // As text, as every read response of the API carries it.
      transaction_code: String(payload.transaction_code),
      service_name: payload.service_name,
      position_number: String(payload.position),
      total_steps: payload.total_steps,
      description: payload.description
    }
  }
}

/**
 * The `trak` channel (D-60, D-56): a `tracked` history entry, and a signed webhook when configured.
 * The entry does not wait for the webhook: it is written with the outcome of the row's first
 * attempt, delivered or not, dated when the step was entered; retries only send the webhook again.
 */
export function trakChannel(deps: TrakChannelDeps): Channel {
  const { settings } = deps
  const signer = settings.webhookUrl !== null && settings.webhookSecret !== null ? new Webhook(settings.webhookSecret) : null
  const receiver = settings.webhookUrl === null ? null : httpTarget(settings.webhookUrl)
  return {
    async deliver(message, signal) {
      if (message.template !== 'step') return unsupported(message)
      const payload = stepPayload(message)
      const orderId = message.orderId
      if (payload === undefined || orderId === null) return failed('the message payload is unreadable', true)
      // Written in the transaction that records the first outcome, and only if this dispatcher
      // still holds the row: a redelivered row never adds a second entry.
      const track: OnRecorded | undefined = message.firstAttempt
        ? (tx) =>
            deps.repository.insertTracked(tx, {
              order_id: orderId,
              at: message.createdAt,
              position: payload.position,
              description: payload.description,
              follows: message.historyId
            })
        : undefined
      if (signer === null || receiver === null) return { kind: 'delivered', onDelivered: track }

      // Standard Webhooks: the body's timestamp is when the event occurred, the same on every
      // retry; the signed header is when this attempt is sent (receivers check it for replays).
      const sentAt = new Date(deps.clock.now())
      const body = JSON.stringify(stepEnteredEvent(payload, new Date(message.createdAt)))
      const headers = {
        // Stable per outbox row: a receiver drops a redelivery by this id.
        'webhook-id': message.eventId,
        'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
        'webhook-signature': signer.sign(message.eventId, sentAt, body)
      }
      const result = await postJson(receiver, body, headers, signal, 'the webhook receiver')
      if (result.kind === 'delivered') return { kind: 'delivered', onDelivered: track }
      return result.kind === 'failed' ? { ...result, onFailed: track } : result
    }
  }
}
