import type { Kysely } from 'kysely'
import type { Dialect } from '../dialect.js'

// Each table's constraints that 0001–0012 left to PostgreSQL's default names, and the name each one
// gets: `_pk` primary keys, `_unique` unique columns, `_fk` references. Frozen: later tables name theirs.
const RENAMES: ReadonlyArray<readonly [table: string, from: string, to: string]> = [
  ['api_keys', 'api_keys_pkey', 'api_keys_pk'],
  ['customer_name_prefixes', 'customer_name_prefixes_customer_id_fkey', 'customer_name_prefixes_customer_fk'],
  ['customers', 'customers_pkey', 'customers_pk'],
  ['customers', 'customers_email_key', 'customers_email_unique'],
  ['data_key', 'data_key_pkey', 'data_key_pk'],
  ['health_probe', 'health_probe_pkey', 'health_probe_pk'],
  ['items', 'items_pkey', 'items_pk'],
  ['items', 'items_service_id_fkey', 'items_service_fk'],
  ['order_history', 'order_history_pkey', 'order_history_pk'],
  ['order_history', 'order_history_order_id_fkey', 'order_history_order_fk'],
  ['orders', 'orders_pkey', 'orders_pk'],
  ['orders', 'orders_code_key', 'orders_code_unique'],
  ['orders', 'orders_public_id_key', 'orders_public_id_unique'],
  ['orders', 'orders_customer_id_fkey', 'orders_customer_fk'],
  ['orders', 'orders_service_id_fkey', 'orders_service_fk'],
  ['orders', 'orders_step_id_fkey', 'orders_step_fk'],
  ['outbox', 'outbox_pkey', 'outbox_pk'],
  ['outbox', 'outbox_event_id_key', 'outbox_event_id_unique'],
  ['outbox', 'outbox_order_id_fkey', 'outbox_order_fk'],
  ['password_reset_tokens', 'password_reset_tokens_pkey', 'password_reset_tokens_pk'],
  ['password_reset_tokens', 'password_reset_tokens_customer_id_fkey', 'password_reset_tokens_customer_fk'],
  ['receipt_lines', 'receipt_lines_pkey', 'receipt_lines_pk'],
  ['receipt_lines', 'receipt_lines_order_id_fkey', 'receipt_lines_order_fk'],
  ['receipt_lines', 'receipt_lines_item_id_fkey', 'receipt_lines_item_fk'],
  ['service_steps', 'service_steps_pkey', 'service_steps_pk'],
  ['service_steps', 'service_steps_service_id_fkey', 'service_steps_service_fk'],
  ['services', 'services_pkey', 'services_pk'],
  ['services', 'services_public_id_key', 'services_public_id_unique'],
  ['services', 'services_name_key_key', 'services_name_key_unique'],
  ['tracking_tokens', 'tracking_tokens_pkey', 'tracking_tokens_pk'],
  ['tracking_tokens', 'tracking_tokens_order_id_fkey', 'tracking_tokens_order_fk'],
  ['tracking_tokens', 'tracking_tokens_token_hash_key', 'tracking_tokens_token_hash_unique']
]

/**
 * Issue 26: code that tells constraints apart (a drawn order code already taken, D-50) names them
 * itself instead of relying on PostgreSQL's defaults (`orders_code_key`). SQLite keeps no names for
 * column constraints and cannot rename them: nothing to do there.
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  if (d.name !== 'postgres') return
  for (const [table, from, to] of RENAMES) await db.schema.alterTable(table).renameConstraint(from, to).execute()
}
