import type { Kysely } from 'kysely'
import type { DB } from '../../db/schema.js'
import type { Param } from '../../db/statement.js'

/** How to reach a customer, read when a message is delivered, not when it was written (D-60). */
export interface Contact {
  first_name: string
  last_name: string
  email: string
  phone: string
}

/** The SELECT of a customer's contact by id: the notifications module runs it in its own statement (customers owns the table). */
export function contactSelect(db: Kysely<DB>, param: Param<{ id: string }>) {
  return db.selectFrom('customers').select(['first_name', 'last_name', 'email', 'phone']).where('id', '=', param('id'))
}
