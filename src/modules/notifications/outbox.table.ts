import type { Generated } from 'kysely'

/** Where an outbox message goes: the three step events of the spec (D-60). */
export type OutboxChannel = 'email' | 'text' | 'trak'

/** Every channel, in the order metrics list them. */
export const OUTBOX_CHANNELS: readonly OutboxChannel[] = ['email', 'text', 'trak']

/** What an outbox message says: a step was entered, a password reset was asked for (D-36), a staff user was invited (D-15). */
export type OutboxTemplate = 'step' | 'password_reset' | 'staff_invitation'

export type OutboxStatus = 'pending' | 'delivered' | 'skipped' | 'dead'

/** `outbox`: messages written in the same database transaction as the change that caused them (D-60). */
export interface OutboxTable {
  id: Generated<number>
  // Stable public id, sent to receivers so they can drop duplicates (webhook-id).
  event_id: string
  channel: OutboxChannel
  template: OutboxTemplate
  // Messages of one order are delivered in id order; null for messages about no order.
  order_id: number | null
  customer_id: string | null
  // A step event: the order's history entry written with it, which its `tracked` entry follows (D-56).
  history_id: number | null
  // JSON snapshot of what the message needs; secrets inside are sealed with the data key.
  payload: string
  status: OutboxStatus
  attempts: number
  next_attempt_at: number
  // A dispatcher's lease on the row; expired leases are taken over (a killed dispatcher loses nothing).
  claimed_by: string | null
  claimed_until: number | null
  last_error: string | null
  created_at: number
  updated_at: number
  delivered_at: number | null
}
