import type { ApiKeysTable } from '../modules/api-keys/api-keys.table.js'
import type { ItemsTable, ServiceStepsTable, ServicesTable } from '../modules/catalogue/catalogue.table.js'
import type { CustomerSearchTermsTable, CustomersTable, PasswordResetTokensTable } from '../modules/customers/customers.table.js'
import type { OutboxTable } from '../modules/notifications/outbox.table.js'
import type { OrderHistoryTable, OrdersTable, ReceiptLinesTable } from '../modules/orders/orders.table.js'
import type { DataKeyTable } from '../modules/payments/data-key.table.js'
import type { StaffPasswordTokensTable, StaffSessionsTable, StaffUsersTable } from '../modules/staff/staff.table.js'
import type { TrackingTokensTable } from '../modules/tracking/tracking.table.js'
import type { HealthProbeTable } from '../platform/health-probe.table.js'
import type { IdempotencyKeysTable } from '../platform/idempotency.table.js'

/** The whole database as Kysely sees it: each module contributes its tables. */
export interface DB {
  api_keys: ApiKeysTable
  idempotency_keys: IdempotencyKeysTable
  customers: CustomersTable
  customer_search_terms: CustomerSearchTermsTable
  password_reset_tokens: PasswordResetTokensTable
  services: ServicesTable
  service_steps: ServiceStepsTable
  items: ItemsTable
  orders: OrdersTable
  receipt_lines: ReceiptLinesTable
  order_history: OrderHistoryTable
  outbox: OutboxTable
  tracking_tokens: TrackingTokensTable
  data_key: DataKeyTable
  health_probe: HealthProbeTable
  staff_users: StaffUsersTable
  staff_sessions: StaffSessionsTable
  staff_password_tokens: StaffPasswordTokensTable
}
