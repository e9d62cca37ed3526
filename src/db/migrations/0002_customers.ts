import type { Kysely } from 'kysely'
import type { Dialect } from '../dialect.js'

/** Customers with their sealed card, and password reset tokens (D-30 to D-37). */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  await db.schema
    .createTable('customers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('first_name', 'text', (c) => c.notNull())
    .addColumn('last_name', 'text', (c) => c.notNull())
    .addColumn('first_name_lc', 'text', (c) => d.binaryText(c.notNull()))
    .addColumn('last_name_lc', 'text', (c) => d.binaryText(c.notNull()))
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('preference', 'text', (c) => c.notNull())
    .addColumn('street', 'text', (c) => c.notNull())
    .addColumn('apartment', 'text', (c) => c.notNull())
    .addColumn('city', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('zip', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('payment_customer_id', 'text', (c) => c.notNull())
    .addColumn('card_ciphertext', 'text')
    .addColumn('card_last4', 'text')
    .addColumn('card_expiration', 'text')
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('updated_at', d.bigint, (c) => c.notNull())
    .execute()
  // D-33: word-prefix search on either name, ordered by last name, first name, id.
  await db.schema.createIndex('customers_last_name_search').on('customers').columns(['last_name_lc', 'first_name_lc', 'id']).execute()
  await db.schema.createIndex('customers_first_name_search').on('customers').columns(['first_name_lc', 'last_name_lc', 'id']).execute()

  await db.schema
    .createTable('password_reset_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('expires_at', d.bigint, (c) => c.notNull())
    .addColumn('used_at', d.bigint)
    .execute()
  await db.schema.createIndex('password_reset_tokens_customer').on('password_reset_tokens').column('customer_id').execute()
}
