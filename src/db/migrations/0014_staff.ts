import type { Kysely } from 'kysely'
import type { Dialect } from '../dialect.js'
import { sqlIn } from './helpers.js'

/**
 * Staff users (D-15), their console sessions (D-16) and their set-password links (D-15, with the
 * token rules of D-36). Constraints are named as 0013 names them, so code can tell them apart.
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  await db.schema
    .createTable('staff_users')
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('updated_at', d.bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('staff_users_pk', ['id'])
    .addUniqueConstraint('staff_users_email_unique', ['email'])
    .addCheckConstraint('staff_users_role_check', sqlIn('role', ['admin', 'staff']))
    .addCheckConstraint('staff_users_status_check', sqlIn('status', ['active', 'disabled']))
    .execute()

  await db.schema
    .createTable('staff_sessions')
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('staff_id', 'text', (c) => c.notNull())
    .addColumn('csrf_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('last_seen_at', d.bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('staff_sessions_pk', ['token_hash'])
    .addForeignKeyConstraint('staff_sessions_staff_fk', ['staff_id'], 'staff_users', ['id'])
    .execute()
  // D-15: disabling a user or changing their password deletes their sessions.
  await db.schema.createIndex('staff_sessions_staff').on('staff_sessions').column('staff_id').execute()

  await db.schema
    .createTable('staff_password_tokens')
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('staff_id', 'text', (c) => c.notNull())
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('expires_at', d.bigint, (c) => c.notNull())
    .addColumn('used_at', d.bigint)
    .addPrimaryKeyConstraint('staff_password_tokens_pk', ['token_hash'])
    .addForeignKeyConstraint('staff_password_tokens_staff_fk', ['staff_id'], 'staff_users', ['id'])
    .execute()
  await db.schema.createIndex('staff_password_tokens_staff').on('staff_password_tokens').column('staff_id').execute()
}
