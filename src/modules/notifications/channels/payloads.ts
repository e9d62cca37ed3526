import type { PasswordResetPayload, StepEventPayload } from '../outbox.repository.js'
import type { OutboxDelivery } from './channel.js'

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}

/** The payload of a `step` message, or undefined when the row does not hold one. */
export function stepPayload(message: OutboxDelivery): StepEventPayload | undefined {
  const p = message.payload
  if (message.template !== 'step' || !isObject(p)) return undefined
  const ok =
    typeof p.transaction_id === 'string' &&
    typeof p.transaction_code === 'number' &&
    typeof p.service_name === 'string' &&
    typeof p.position === 'number' &&
    typeof p.total_steps === 'number' &&
    typeof p.description === 'string'
  return ok ? (p as unknown as StepEventPayload) : undefined
}

/** The payload of a `password_reset` message, or undefined (also once its link was scrubbed). */
export function passwordResetPayload(message: OutboxDelivery): PasswordResetPayload | undefined {
  const p = message.payload
  if (message.template !== 'password_reset' || !isObject(p)) return undefined
  return typeof p.email === 'string' && typeof p.sealed_link === 'string' ? (p as unknown as PasswordResetPayload) : undefined
}

/** "step 2 of 5 (40%)": the progress a customer reads in e-mails and texts (D-60). */
export function progressText(payload: StepEventPayload): string {
  const percent = payload.total_steps > 0 ? Math.round((payload.position / payload.total_steps) * 100) : 0
  return `step ${payload.position} of ${payload.total_steps} (${percent}%)`
}
