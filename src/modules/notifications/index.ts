// Notifications: the outbox other modules write in their transactions, and the dispatcher that delivers it (D-60).
export { createDispatcher, type NotificationSettings } from './create-dispatcher.js'
export { NOTIFICATIONS_USAGE, outboxCommand, runWorker } from './notifications.cli.js'
export { type OutboxCounters, registerOutboxMetrics } from './notifications.metrics.js'
export {
  MAX_MESSAGES_PER_INSERT,
  type OutboxMessage,
  type OutboxRowParams,
  type OutboxWriter,
  outboxRowParams,
  outboxRows,
  outboxWriter
} from './outbox.repository.js'
