import path from 'node:path'
import type { NotificationsRepository } from '../notifications.repository.js'
import type { StepEventPayload } from '../outbox.repository.js'
import { type Channel, failed, unsupported } from './channel.js'
import { httpTarget, postJson } from './http.js'
import { writeMessageFile } from './outbox-files.js'
import { progressText, stepPayload } from './payloads.js'

/** Where texts go (D-60): the SMS gateway at SMS_WEBHOOK_URL, else files under `<dataDir>/sms/`. */
export interface TextSettings {
  readonly smsWebhookUrl: string | null
  readonly dataDir: string
}

/** What the text channel is built from. */
export interface TextChannelDeps {
  settings: TextSettings
  repository: NotificationsRepository
}

const MAX_DESCRIPTION = 160

/** The text of a step's `text` event: short, with the service, code, progress and the step. */
export function stepText(firstName: string, payload: StepEventPayload): string {
  const description =
    payload.description.length > MAX_DESCRIPTION ? `${payload.description.slice(0, MAX_DESCRIPTION - 1)}…` : payload.description
  const opening = firstName === '' ? 'Your' : `Hi ${firstName}, your`
  return `${opening} ${payload.service_name} order ${payload.transaction_code} is at ${progressText(payload)}: ${description}`
}

/** The `text` channel (D-60): POST `{to, body}` to the gateway, or one file per message. */
export function textChannel(deps: TextChannelDeps): Channel {
  const { settings } = deps
  const smsDir = path.join(settings.dataDir, 'sms')
  const gateway = settings.smsWebhookUrl === null ? null : httpTarget(settings.smsWebhookUrl)
  return {
    async deliver(message, signal) {
      if (message.template !== 'step') return unsupported(message)
      const payload = stepPayload(message)
      if (payload === undefined || message.customerId === null) return failed('the message payload is unreadable', true)
      const contact = await deps.repository.contact(message.customerId)
      if (contact === undefined) return { kind: 'skipped', reason: 'the customer no longer exists' }
      // D-60: a customer without a phone is skipped with the reason recorded, not retried.
      if (contact.phone === '') return { kind: 'skipped', reason: 'the customer has no phone number' }
      const text = { to: contact.phone, body: stepText(contact.first_name, payload) }
      if (gateway !== null) {
        // The event id lets a gateway that honours Idempotency-Key drop a redelivered text.
        return postJson(gateway, JSON.stringify(text), { 'idempotency-key': message.eventId }, signal, 'the SMS gateway')
      }
      await writeMessageFile(smsDir, message.eventId, 'json', `${JSON.stringify({ ...text, event_id: message.eventId }, null, 2)}\n`)
      return { kind: 'delivered' }
    }
  }
}
