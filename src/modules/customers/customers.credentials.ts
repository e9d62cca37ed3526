import type { Kysely } from 'kysely'
import { prepare } from '../../db/prepared.js'
import type { DB } from '../../db/schema.js'

/** The stored login of a customer by normalised e-mail, read on every customer-authenticated request. */
export function customerLoginQuery(db: Kysely<DB>) {
  return prepare<{ email: string }, { id: string; password_hash: string | null }>(db, (db, p) =>
    db.selectFrom('customers').select(['id', 'password_hash']).where('email', '=', p('email'))
  )
}
