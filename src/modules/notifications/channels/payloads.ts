import type { PasswordResetPayload, StaffInvitationPayload, StepEventPayload } from '../outbox.repository.js'
import type { OutboxDelivery } from './channel.js'

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}

function isStepPayload(payload: unknown): payload is StepEventPayload {
  return (
    isObject(payload) &&
    typeof payload.transaction_id === 'string' &&
    typeof payload.transaction_code === 'number' &&
    typeof payload.service_name === 'string' &&
    typeof payload.position === 'number' &&
    typeof payload.total_steps === 'number' &&
    typeof payload.description === 'string'
  )
}

function isPasswordResetPayload(payload: unknown): payload is PasswordResetPayload {
  return isObject(payload) && typeof payload.email === 'string' && typeof payload.sealed_link === 'string'
}

function isInvitationPayload(payload: unknown): payload is StaffInvitationPayload {
  return isPasswordResetPayload(payload) && typeof (payload as { name?: unknown }).name === 'string'
}

/** The payload of a `step` message, or undefined when the row does not hold one. */
export function stepPayload(message: OutboxDelivery): StepEventPayload | undefined {
  const { payload } = message
  return message.template === 'step' && isStepPayload(payload) ? payload : undefined
}

/** The payload of a `password_reset` message, or undefined (also once its link was scrubbed). */
export function passwordResetPayload(message: OutboxDelivery): PasswordResetPayload | undefined {
  const { payload } = message
  return message.template === 'password_reset' && isPasswordResetPayload(payload) ? payload : undefined
}

/** The payload of a `staff_invitation` message, or undefined (also once its link was scrubbed). */
export function staffInvitationPayload(message: OutboxDelivery): StaffInvitationPayload | undefined {
  const { payload } = message
  return message.template === 'staff_invitation' && isInvitationPayload(payload) ? payload : undefined
}

/** "step 2 of 5 (40%)": the progress a customer reads in e-mails and texts (D-60). */
export function progressText(payload: StepEventPayload): string {
  const percent = payload.total_steps > 0 ? Math.round((payload.position / payload.total_steps) * 100) : 0
  return `step ${payload.position} of ${payload.total_steps} (${percent}%)`
}
